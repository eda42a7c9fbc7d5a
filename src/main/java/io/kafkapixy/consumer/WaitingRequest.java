package io.kafkapixy.consumer;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * A parked consume request: it waits for a message until {@code deadline} (arrival + long-polling timeout). Its
 * future is completed only under the owning group's lock, with a message or a {@code PixyException}.
 */
final class WaitingRequest {

    final Instant deadline;
    /** The meters of the topic it waits for. */
    final ConsumerMetrics.Topic meters;
    /** The message it gets counts as acked as it is handed over (auto-ack): no second trip through the lock. */
    final boolean autoAck;
    final CompletableFuture<ConsumedMessage> result = new CompletableFuture<>();

    WaitingRequest(Instant deadline, ConsumerMetrics.Topic meters, boolean autoAck) {
        this.deadline = deadline;
        this.meters = meters;
        this.autoAck = autoAck;
    }
}
