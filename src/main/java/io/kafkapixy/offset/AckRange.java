package io.kafkapixy.offset;

/**
 * A half-open run {@code [from, to)} of acknowledged offsets.
 *
 * <p>Deliberately unvalidated, like the original's {@code offsetRange}: ranges decoded from foreign metadata may
 * sit at or below the committed offset or touch each other, and the tracker reproduces the original's behaviour
 * on such states instead of rejecting them. Ranges produced by {@link SparseAcks#decode} always have
 * {@code 0 < from < to}.
 */
public record AckRange(long from, long to) {
}
