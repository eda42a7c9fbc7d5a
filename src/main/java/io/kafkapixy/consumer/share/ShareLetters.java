package io.kafkapixy.consumer.share;

import io.kafkapixy.consumer.DeadLetter;
import io.kafkapixy.consumer.DeadLettering;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.clients.consumer.AcknowledgeType;

/**
 * A share group topic's side of {@link DeadLettering}: a rejected record, and one the broker would archive when it is
 * released (its delivery count has reached the group's delivery limit, {@code max_retries} + 1), is kept locked here
 * while its dead letter is written, then rejected at the broker. The broker's own delivery limit never archives a
 * record unseen: the proxy gives up on it first, at the release that would have archived it.
 *
 * <p>Part of its {@link ShareTopic}; the methods marked so run under its lock, the others take it.
 */
final class ShareLetters {

    private static final System.Logger LOG = System.getLogger(ShareLetters.class.getName());

    private final ShareTopic t;
    private final DeadLettering letters;
    /** Deliveries after which the broker archives a released record; 0 when not known (nothing is intercepted). */
    private final int deliveryLimit;

    ShareLetters(ShareTopic t, DeadLettering letters, int deliveryLimit) {
        this.t = t;
        this.letters = letters;
        this.deliveryLimit = deliveryLimit;
    }

    boolean enabled() {
        return letters.enabled();
    }

    /**
     * A client rejects a record out with it: dead-lettered, then rejected at the broker. Null when it is not out from
     * here; else completes once the broker took the rejection, or fails when the dead letter was not written (the
     * record is out with its client again).
     */
    CompletableFuture<Void> reject(int partition, long offset) {
        Acquired a;
        t.lock.lock();
        try {
            a = t.out.remove(new Acquired.Key(partition, offset));
            if (a == null) {
                return null;
            }
            if (a.stream != null) {
                a.stream.released(a);
            }
            a.lettering = true;
            t.reportOldest();
        } finally {
            t.lock.unlock();
        }
        return send(a, DeadLetter.Reason.REJECTED, null);
    }

    /**
     * Under the lock: {@code a} is about to be released to the broker. When that would archive it and a dead-letter
     * topic is set, it is dead-lettered instead (true: the caller leaves it alone).
     */
    boolean instead(Acquired a) {
        if (a.lettering) {
            return true;
        }
        if (!letters.enabled() || deliveryLimit <= 0 || a.message.attempt() < deliveryLimit || a.lost
            || a.settlement != null) {
            return false;
        }
        a.lettering = true;
        a.releaseAt = null;
        t.out.remove(a.key(), a);
        t.unhanded.remove(a);
        if (a.stream != null) {
            a.stream.released(a);
        }
        send(a, DeadLetter.Reason.RETRIES_EXHAUSTED, DeadLettering.RETRY_DELAY);
        return true;
    }

    private CompletableFuture<Void> send(Acquired a, DeadLetter.Reason reason, Duration retryAfter) {
        // the broker counts an acquisition as a delivery; one no client got (waiting here) is not counted here
        int deliveries = a.handedAt == null ? a.message.attempt() - 1 : a.message.attempt();
        DeadLetter letter = new DeadLetter(t.group, a.message, reason, deliveries, t.clock.instant());
        CompletableFuture<Void> settled = letters.send(letter, t.meters, new DeadLettering.Held() {
            @Override
            public CompletableFuture<Void> written() {
                return settle(a);
            }

            @Override
            public void notWritten() {
                putBack(a, retryAfter);
            }
        });
        return reason == DeadLetter.Reason.REJECTED ? settled : settled.exceptionally(e -> null);
    }

    /** The dead letter is written: the record is rejected at the broker, at once. */
    private CompletableFuture<Void> settle(Acquired a) {
        t.lock.lock();
        try {
            a.lettering = false;
            if (a.settlement != null || a.lost) {
                // its lock ran out meanwhile: the broker delivers it again, and it may be dead-lettered twice
                return CompletableFuture.failedFuture(
                        new org.apache.kafka.common.errors.InvalidRecordStateException("the broker's lock ran out"));
            }
            a.settlement = AcknowledgeType.REJECT;
            a.awaited = true;
            t.changed.signalAll();
            return a.confirmed;
        } finally {
            t.lock.unlock();
        }
    }

    /**
     * The dead letter was not written: a rejected record is out with its client again (its ack_timeout running as
     * before); one whose deliveries ran out is tried again after {@code retryAfter}, or at a shutdown released (the
     * broker then archives it).
     */
    private void putBack(Acquired a, Duration retryAfter) {
        t.lock.lock();
        try {
            a.lettering = false;
            if (a.settlement != null || a.lost) {
                return;
            }
            Instant now = t.clock.instant();
            if (retryAfter == null) {
                a.stream = null;
                t.out.put(a.key(), a);
            } else if (t.shutdownDeadline != null) {
                LOG.log(Level.WARNING, "Shutting down: group={0}, topic={1}, partition={2}, offset={3} released "
                        + "without its dead letter; the broker archives it", t.group, t.topic,
                        a.record.partition(), a.record.offset());
                a.settlement = AcknowledgeType.RELEASE;
            } else {
                a.releaseAt = now.plus(retryAfter);
            }
            t.changed.signalAll();
        } finally {
            t.lock.unlock();
        }
    }
}
