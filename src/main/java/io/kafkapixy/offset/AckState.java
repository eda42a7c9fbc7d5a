package io.kafkapixy.offset;

/**
 * Answer of {@link OffsetTracker#ackState(long)}, the original's {@code IsAcked}: whether the offset is acked, and
 * {@code nextNotAcked}, the offset the original reports as the next not-acked one after it.
 */
public record AckState(boolean acked, long nextNotAcked) {
}
