package io.kafkapixy.consumer;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;

import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;

/**
 * A consume request waiting for its message. Its {@link #result()} completes with the message or a
 * {@link PixyException} (long polling timeout at the deadline, shutting down), possibly on another thread: the group's
 * owning thread, a thread serving another request, or the deadline timer. Transports that must not block (gRPC on
 * its event loop) attach to the result; others {@link #await()} it.
 */
public final class PendingConsume {

    private final CompletableFuture<ConsumedMessage> result;
    private final Runnable cancel;

    PendingConsume(CompletableFuture<ConsumedMessage> result, Runnable cancel) {
        this.result = result;
        this.cancel = cancel;
    }

    /** The message, or a failure whose cause ({@link #failure}) is a {@link PixyException}. */
    public CompletableFuture<ConsumedMessage> result() {
        return result;
    }

    /**
     * The client is gone: the request leaves the queue unless a message was handed to it already (then the result
     * has it, and it is redelivered after {@code ack_timeout} unless acked).
     */
    public void cancel() {
        cancel.run();
    }

    /** Blocks until the result; an interrupt cancels the request (a message handed over meanwhile is returned). */
    public ConsumedMessage await() {
        try {
            return result.get();
        } catch (InterruptedException e) {
            cancel();
            Thread.currentThread().interrupt();
            try {
                return result.join();
            } catch (CompletionException | java.util.concurrent.CancellationException failed) {
                throw failure(failed);
            }
        } catch (ExecutionException e) {
            throw failure(e);
        }
    }

    /** The same request, with {@code action} run when it completes (before anything attached later). */
    PendingConsume whenComplete(BiConsumer<ConsumedMessage, Throwable> action) {
        return new PendingConsume(result.whenComplete(action), cancel);
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
