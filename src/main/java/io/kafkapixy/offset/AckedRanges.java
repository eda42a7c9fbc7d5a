package io.kafkapixy.offset;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A committed offset and the acked ranges above it, as the original keeps them: every offset below {@link #offset()}
 * is acked, and so is every offset in one of the disjoint, ascending, non-adjacent ranges {@code [from, to)} above it.
 * Not thread-safe.
 */
final class AckedRanges {

    private long offset;
    /** Flat {@code from, to} pairs; the first {@code count} pairs are live. */
    private long[] ranges;
    private int count;

    /** From a committed offset and its decoded ranges as flat {@code from, to} pairs (taken, not copied). */
    AckedRanges(long offset, long[] pairs) {
        this.offset = offset;
        this.count = pairs.length / 2;
        this.ranges = pairs.length >= 8 ? pairs : Arrays.copyOf(pairs, 8);
    }

    long offset() {
        return offset;
    }

    /** Whether {@code o} is acked: below {@link #offset()} or inside an acked range. */
    boolean contains(long o) {
        if (o < offset) {
            return true;
        }
        for (int i = 0; i < count; i++) {
            if (o < ranges[2 * i]) {
                return false;
            }
            if (o < ranges[2 * i + 1]) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@link #offset()} if {@code o} is below it; the end of the range holding {@code o}; the end of the range
     * starting at {@code o + 1}; otherwise {@code o + 1}.
     */
    long nextNotAcked(long o) {
        if (o < offset) {
            return offset;
        }
        for (int i = 0; i < count; i++) {
            long from = ranges[2 * i];
            long to = ranges[2 * i + 1];
            if (o < from) {
                return o + 1 == from ? to : o + 1;
            }
            if (o < to) {
                return to;
            }
        }
        return o + 1;
    }

    /** The original's {@code updateAckedRanges}: adds {@code o}; false if it was acked already. */
    boolean add(long o) {
        if (o < offset) {
            return false;
        }
        if (o == offset) {
            if (count > 0 && o == ranges[0] - 1) {
                offset = ranges[1];
                removeRanges(0, 1);
            } else {
                offset += 1;
            }
            return true;
        }
        for (int i = 0; i < count; i++) {
            long from = ranges[2 * i];
            long to = ranges[2 * i + 1];
            if (o < from) {
                if (o == from - 1) {
                    ranges[2 * i] = o;
                } else {
                    insertRange(i, o, o + 1);
                }
                return true;
            }
            if (o < to) {
                return false;
            }
            if (o == to) {
                if (count > i + 1 && o == ranges[2 * (i + 1)] - 1) {
                    // o fills the single-offset gap: the next range absorbs this one.
                    ranges[2 * (i + 1)] = from;
                    removeRanges(i, 1);
                } else {
                    ranges[2 * i + 1] = to + 1;
                }
                return true;
            }
        }
        insertRange(count, o, o + 1);
        return true;
    }

    /**
     * The offset becomes {@code realStart}, or the end of the acked range containing it, and ranges below it are
     * discarded; {@code realStart} must not be below {@link #offset()}.
     */
    void advanceTo(long realStart) {
        long newOffset = realStart;
        int drop = 0;
        for (int i = 0; i < count; i++) {
            if (newOffset < ranges[2 * i]) {
                break;
            }
            drop = i + 1;
            if (newOffset < ranges[2 * i + 1]) {
                newOffset = ranges[2 * i + 1];
                break;
            }
        }
        removeRanges(0, drop);
        offset = newOffset;
    }

    /** The ranges, ascending. */
    List<AckRange> snapshot() {
        List<AckRange> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(new AckRange(ranges[2 * i], ranges[2 * i + 1]));
        }
        return out;
    }

    /** The sparse-acks encoding of the ranges, relative to the offset: the metadata to commit with it. */
    String encode() {
        return SparseAcks.encode(offset, ranges, count);
    }

    /** The human form, as the {@code sparse_acks} field and the original's logs show it: {@code 1-3,5-6}. */
    String human() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < count; i++) {
            if (i != 0) {
                out.append(',');
            }
            out.append(ranges[2 * i] - offset).append('-').append(ranges[2 * i + 1] - offset);
        }
        return out.toString();
    }

    private void insertRange(int index, long from, long to) {
        if (2 * (count + 1) > ranges.length) {
            ranges = Arrays.copyOf(ranges, ranges.length * 2);
        }
        System.arraycopy(ranges, 2 * index, ranges, 2 * index + 2, 2 * (count - index));
        ranges[2 * index] = from;
        ranges[2 * index + 1] = to;
        count++;
    }

    private void removeRanges(int index, int n) {
        if (n == 0) {
            return;
        }
        System.arraycopy(ranges, 2 * (index + n), ranges, 2 * index, 2 * (count - index - n));
        count -= n;
    }
}
