package io.kafkapixy.offset;

import java.time.Instant;

/**
 * A message handed to a consumer and not acknowledged yet: {@code retryNo} counts re-deliveries (0 = only the
 * first delivery), {@code deadline} is when it becomes due for a retry.
 */
public record Offer(long offset, int retryNo, Instant deadline) {
}
