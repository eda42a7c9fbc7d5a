package io.kafkapixy.admin;

/**
 * One partition of get-offsets: its log range, the group's committed offset and metadata, the lag
 * and the sparse acks the metadata encodes (human form, "" when none or undecodable).
 */
public record PartitionOffsets(int partition, long begin, long end, long count, long offset, long lag,
                               String metadata, String sparseAcks) {

    /** The original's lag: 0 with no commit (-1), the whole log for -2, else end − offset (may be negative). */
    static long lag(long offset, long begin, long end) {
        if (offset == -1) {
            return 0;
        }
        if (offset == -2) {
            return end - begin;
        }
        return end - offset;
    }
}
