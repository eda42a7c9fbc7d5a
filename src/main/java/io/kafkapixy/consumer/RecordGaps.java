package io.kafkapixy.consumer;

import java.util.ArrayDeque;

import io.kafkapixy.offset.OffsetTracker;

/**
 * Offsets of a partition that hold no record (transaction markers, compacted or deleted records): they count as
 * acked once everything before them is, so the committed offset does not stall below them (the original's would).
 *
 * <p>Not thread-safe: part of its {@link PartitionState}.
 */
final class RecordGaps {

    private final OffsetTracker tracker;
    /** {from, to} pairs not closed yet, ascending. */
    private final ArrayDeque<long[]> gaps = new ArrayDeque<>();
    private long nextExpected;

    RecordGaps(OffsetTracker tracker, long fetchFrom) {
        this.tracker = tracker;
        this.nextExpected = fetchFrom;
    }

    /** A record at {@code offset} was fetched: offsets skipped since the last one hold no message. */
    void fetched(long offset) {
        if (offset > nextExpected) {
            gaps.addLast(new long[]{nextExpected, offset});
            close();
        }
        if (offset >= nextExpected) {
            nextExpected = offset + 1;
        }
    }

    /**
     * The consumer's fetch position moved to {@code position}: offsets below it that were not fetched hold no record
     * (a transaction marker at the end of the log is only seen this way, as no record follows it).
     */
    void fetchedUpTo(long position) {
        if (position > nextExpected) {
            gaps.addLast(new long[]{nextExpected, position});
            nextExpected = position;
            close();
        }
    }

    /** The committed offset may have reached a gap: it moves past it. */
    void close() {
        long[] gap;
        while ((gap = gaps.peekFirst()) != null && tracker.offset() >= gap[0]) {
            gaps.pollFirst();
            if (tracker.offset() < gap[1]) {
                tracker.adjust(gap[1]);
            }
        }
    }

    /** The next offset a fetch is expected to bring. */
    long nextExpected() {
        return nextExpected;
    }
}
