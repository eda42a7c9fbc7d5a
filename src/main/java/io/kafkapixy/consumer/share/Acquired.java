package io.kafkapixy.consumer.share;

import io.kafkapixy.consumer.ConsumedMessage;
import io.kafkapixy.consumer.InFlight;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A record one share consumer acquired from the broker: waiting for a client, or handed to one, until it is settled
 * (accepted, released or rejected). The broker holds it for this consumer until {@code lockDeadline}, which a renewal
 * moves; a client has it until {@code ack_timeout} after it was handed out ({@link #dueAt}), after which it is
 * released here, however long the broker's lock would still hold it.
 *
 * <p>Mutable fields are guarded by the {@link ShareTopic}'s lock.
 */
final class Acquired {

    final ShareWorker holder;
    final ConsumerRecord<byte[], byte[]> record;
    final ConsumedMessage message;
    /** When the broker's lock on it runs out, as last granted or renewed. */
    Instant lockDeadline;
    /** How long the broker's lock lasts from a grant or a renewal. */
    Duration lockDuration;
    /** When this instance got it from the broker. */
    final Instant acquiredAt;
    /** When it was last handed to a client; null while it waits for one. */
    Instant handedAt;
    /** How the record is settled; null until it is. */
    AcknowledgeType settlement;
    /** Settled because its client's ack_timeout or the broker's lock ran out: counted apart from a release. */
    boolean lockExpired;
    /**
     * The consumer no longer has it in flight (a renewal the broker refused): its settlement is not acknowledged to
     * the consumer, which would refuse it.
     */
    boolean lost;
    /** The stream it was handed to, or null (a unary request's, or not handed out). */
    ShareStream stream;
    /** Someone waits for the broker's answer to its settlement (an ack call): it is sent at once. */
    boolean awaited;
    /** Its dead letter is being written ({@link ShareLetters}): kept locked here, out with no client. */
    boolean lettering;
    /** When its client last renewed it: its ack_timeout counts from then (a later hand-out counts from itself). */
    Instant renewedAt;
    /** Nacked: released to the broker at this instant (or when its lock runs out, whichever is first). */
    Instant releaseAt;
    /** Completes once the broker has taken the settlement, or with why it did not. */
    final CompletableFuture<Void> confirmed = new CompletableFuture<>();

    Acquired(ShareWorker holder, ConsumerRecord<byte[], byte[]> record, Duration lockDuration, Instant lockedAt,
             Instant acquiredAt) {
        this.holder = holder;
        this.record = record;
        this.lockDuration = lockDuration;
        this.lockDeadline = lockedAt.plus(lockDuration);
        this.acquiredAt = acquiredAt;
        this.message = new ConsumedMessage(record.topic(), record.partition(), record.offset(), record.key(),
                record.value(), java.util.List.of(record.headers().toArray()),
                record.deliveryCount().map(Short::intValue).orElse(1));
    }

    /** Where the record is, as clients name it in an ack. */
    Key key() {
        return new Key(record.partition(), record.offset());
    }

    /** When a client that has it loses it ({@code ack_timeout} after it was handed out); null while not handed out. */
    Instant dueAt(Duration ackTimeout) {
        if (handedAt == null) {
            return null;
        }
        return (renewedAt != null && renewedAt.isAfter(handedAt) ? renewedAt : handedAt).plus(ackTimeout);
    }

    /**
     * When this instance lets the record go unless it is settled first: its client's due time or its nack's release
     * time, whichever applies; null while it waits for a client (it is kept for one) or its dead letter is written.
     */
    Instant releaseDue(Duration ackTimeout) {
        if (lettering) {
            return null;
        }
        if (releaseAt != null) {
            return releaseAt;
        }
        return dueAt(ackTimeout);
    }

    /**
     * Whether the broker's lock must be renewed by {@code now} to keep the record until this instance lets it go: the
     * lock runs out within a quarter of its duration, before the record's release is due.
     */
    boolean renewDue(Instant now, Duration ackTimeout) {
        Instant release = releaseDue(ackTimeout);
        if (release != null && !release.isAfter(lockDeadline)) {
            return false;
        }
        return !now.isBefore(renewAt());
    }

    /** When a renewal of the lock is due: a quarter of its duration before it runs out. */
    Instant renewAt() {
        return lockDeadline.minus(lockDuration.dividedBy(4));
    }

    /** A copy for {@link InFlight} at {@code now}: {@code out} with a client, or {@code waiting} for one. */
    InFlight.Message view(Instant now, String where, boolean showMessages, Duration ackTimeout) {
        Instant since = handedAt != null ? handedAt : acquiredAt;
        // a release after the lock runs out is kept by renewing the lock: the release is when the record goes
        Instant release = releaseDue(ackTimeout);
        Instant due = release != null ? release : lockDeadline;
        return new InFlight.Message(record.partition(), record.offset(), message.attempt(),
                Duration.between(since, now).toMillis(), Duration.between(now, due).toMillis(), where,
                showMessages ? record.key() : null, showMessages ? record.value() : null);
    }

    record Key(int partition, long offset) {
    }
}
