package io.kafkapixy.consumer;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * A parked consume request: it waits for a message until {@code deadline} (arrival + long-polling timeout). Its
 * future is completed only under the owning group's lock, with a message or a {@code PixyException}.
 */
public final class WaitingRequest {

    public final Instant deadline;
    /** The meters of the topic it waits for. */
    public final ConsumerMetrics.Topic meters;
    /** The message it gets counts as acked once its transport says it was delivered (auto-ack). */
    public final boolean autoAck;
    public final Receiver receiver;
    public final CompletableFuture<ConsumedMessage> result = new CompletableFuture<>();

    public WaitingRequest(Instant deadline, ConsumerMetrics.Topic meters, boolean autoAck, Receiver receiver) {
        this.deadline = deadline;
        this.meters = meters;
        this.autoAck = autoAck;
        this.receiver = receiver;
    }
}
