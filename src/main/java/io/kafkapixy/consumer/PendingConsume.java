package io.kafkapixy.consumer;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;

/**
 * A consume request waiting for its message. Its {@link #result()} completes with the message or a
 * {@link PixyException} (long polling timeout at the deadline, shutting down), possibly on another thread: the group's
 * owning thread, a thread serving another request, or the deadline timer. Transports that must not block (gRPC on
 * its event loop) attach to the result; others {@link #await()} it.
 *
 * <p>A message handed over is settled once by its transport: {@link #delivered()} when the answer carrying it was
 * sent (an auto-ack request's message counts as acked then, not before), or {@link #cancel()} when the client is gone
 * (the message is offered again at once, as if it had never been taken). One that is never settled stays offered and
 * is redelivered after {@code ack_timeout}, as an unacked message is.
 */
public final class PendingConsume {

    private final Settler group;
    private final String topic;
    private final WaitingRequest request;
    private final CompletableFuture<ConsumedMessage> result;
    private final AtomicBoolean settled;

    /** The request {@code r}, parked in {@code group} for {@code topic}. */
    PendingConsume(Settler group, String topic, WaitingRequest r) {
        this(group, topic, r, r.result, new AtomicBoolean());
    }

    private PendingConsume(Settler group, String topic, WaitingRequest request,
                           CompletableFuture<ConsumedMessage> result, AtomicBoolean settled) {
        this.group = group;
        this.topic = topic;
        this.request = request;
        this.result = result;
        this.settled = settled;
    }

    /**
     * The request {@code r}, parked in {@code group} for {@code topic}, in any kind of group: {@code deadlines}
     * answers it {@code long polling timeout} at its deadline unless it was answered first, and its outcome is counted
     * on its topic's meters.
     */
    public static PendingConsume parked(Settler group, String topic, WaitingRequest r, Deadlines deadlines) {
        if (!r.result.isDone()) {
            Deadlines.Timer timer = deadlines.at(r.deadline,
                    () -> group.giveUp(topic, r, PixyException.longPollTimeout()));
            r.result.whenComplete((m, e) -> timer.cancel());
        }
        ConsumerMetrics.Topic meters = r.meters;
        return new PendingConsume(group, topic, r).whenComplete((m, e) -> meters.request(
                e == null ? ConsumerMetrics.Outcome.MESSAGE
                        : failure(e).kind() == ErrorKind.LONG_POLL_TIMEOUT
                        ? ConsumerMetrics.Outcome.LONG_POLL_TIMEOUT : ConsumerMetrics.Outcome.ERROR));
    }

    /** The message, or a failure whose cause ({@link #failure}) is a {@link PixyException}. */
    public CompletableFuture<ConsumedMessage> result() {
        return result;
    }

    /**
     * The client is gone, at whatever point: the request leaves the queue, and a message already handed to it is
     * offered again at once unless {@link #delivered()} came first.
     */
    public void cancel() {
        group.giveUp(topic, request, PixyException.shuttingDown());
        ConsumedMessage m = handedMessage();
        if (m != null && settled.compareAndSet(false, true)) {
            group.returnOffer(m);
        }
    }

    /** The answer carrying the handed message was sent to the client. */
    public void delivered() {
        ConsumedMessage m = handedMessage();
        if (m != null && settled.compareAndSet(false, true) && request.autoAck) {
            group.ack(m.topic(), m.partition(), m.offset());
        }
    }

    /** The message handed to the request, or null: none yet, or it ended without one. */
    private ConsumedMessage handedMessage() {
        CompletableFuture<ConsumedMessage> handed = request.result;
        return handed.isDone() && !handed.isCompletedExceptionally() ? handed.join() : null;
    }

    /**
     * Blocks until the result. An interrupt cancels the request (a message handed over meanwhile is offered again)
     * and answers {@code service is shutting down}.
     */
    public ConsumedMessage await() {
        try {
            return result.get();
        } catch (InterruptedException e) {
            cancel();
            Thread.currentThread().interrupt();
            throw PixyException.shuttingDown();
        } catch (ExecutionException e) {
            throw failure(e);
        }
    }

    /** The same request, with {@code action} run when it completes (before anything attached later). */
    PendingConsume whenComplete(BiConsumer<ConsumedMessage, Throwable> action) {
        return new PendingConsume(group, topic, request, result.whenComplete(action), settled);
    }

    /** The {@link PixyException} a failed result carries, unwrapped. */
    public static PixyException failure(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
               && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof PixyException p ? p
                : new PixyException(ErrorKind.INTERNAL, String.valueOf(cause.getMessage()), cause);
    }
}
