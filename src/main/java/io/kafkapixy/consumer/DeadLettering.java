package io.kafkapixy.consumer;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;

/**
 * How both kinds of group give up on a message: its group takes it out of circulation (no client gets it, nothing
 * settles it), the dead letter is written, and only once the brokers have it is the message settled (committed past
 * in a classic group, rejected at the broker in a share group). A write that fails leaves the message unsettled: a
 * rejected one goes back to the client that held it, which may reject it again; one whose retries ran out is tried
 * again after {@link #RETRY_DELAY}. A message is therefore never lost; it may reach the dead-letter topic twice when
 * its group loses it between the write and the settlement (a rebalance, a lock that ran out).
 *
 * <p>Thread-safe. {@link Held}'s methods are called on a thread of this class, never on the caller's or the
 * producer's, so they may take the group's lock.
 */
public final class DeadLettering {

    private static final System.Logger LOG = System.getLogger(DeadLettering.class.getName());

    /** How long a message whose write failed waits before its next try. */
    public static final Duration RETRY_DELAY = Duration.ofSeconds(5);

    /** No dead-letter topic. */
    public static final DeadLettering NONE = new DeadLettering(DeadLetters.NONE);

    private final DeadLetters writer;
    private final Executor completions = Executors.newVirtualThreadPerTaskExecutor();
    /** Dead-letter topics whose last write failed: a failure is logged once until a write succeeds again. */
    private final Set<String> failing = ConcurrentHashMap.newKeySet();

    public DeadLettering(DeadLetters writer) {
        this.writer = writer;
    }

    /** A message its group took out of circulation while its dead letter is written. */
    public interface Held {

        /** The dead letter is written: settle the message. Completes once it is settled. */
        CompletableFuture<Void> written();

        /** The write failed: the message is back in circulation, as the class says. */
        void notWritten();
    }

    /** Whether messages are dead-lettered (a topic is set). */
    public boolean enabled() {
        return writer.enabled();
    }

    /**
     * Writes {@code letter}, then settles or restores the message through {@code held}. The result completes once the
     * message is settled, or fails with a {@link PixyException} saying why the dead letter was not written (after
     * {@link Held#notWritten()}) or why the settlement failed.
     */
    public CompletableFuture<Void> send(DeadLetter letter, ConsumerMetrics.Topic meters, Held held) {
        CompletableFuture<Void> sent;
        try {
            sent = writer.write(letter);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handleAsync((ok, error) -> {
            if (error == null) {
                meters.deadLettered(letter.reason());
                failing.remove(letter.message().topic());
                return held.written();
            }
            PixyException why = refused(letter, error);
            meters.deadLetterFailed();
            held.notWritten();
            return CompletableFuture.<Void>failedFuture(why);
        }, completions).thenCompose(f -> f);
    }

    private PixyException refused(DeadLetter letter, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        PixyException why = new PixyException(ErrorKind.INTERNAL, "the dead-letter topic refused the message: "
                + cause.getMessage(), cause);
        if (failing.add(letter.message().topic())) {
            LOG.log(Level.WARNING, "Dead letter not written: group={0}, topic={1}, partition={2}, offset={3}, "
                            + "reason={4}: {5}; the message stays unsettled and is tried again", letter.group(),
                    letter.message().topic(), letter.message().partition(), letter.message().offset(),
                    letter.reason().label(), cause.getMessage());
        }
        return why;
    }
}
