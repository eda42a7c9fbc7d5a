package io.kafkapixy.consumer;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A record one share consumer acquired from the broker: waiting for a client, or handed to one, until it is settled
 * (accepted, released or rejected). The broker holds it for this consumer until {@code lockDeadline}; after that it
 * may be another's, so it is settled as released here and a client's late ack is refused.
 *
 * <p>Mutable fields are guarded by the {@link ShareTopic}'s lock.
 */
final class Acquired {

    final ShareWorker holder;
    final ConsumerRecord<byte[], byte[]> record;
    final ConsumedMessage message;
    final Instant lockDeadline;
    /** When this instance got it from the broker. */
    final Instant acquiredAt;
    /** How the record is settled; null until it is. */
    AcknowledgeType settlement;
    /** Settled because its lock ran out (released by the broker already). */
    boolean lockExpired;
    /** The stream it was handed to, or null (a unary request's, or not handed out). */
    ShareStream stream;
    /** Someone waits for the broker's answer to its settlement (an ack call): it is sent at once. */
    boolean awaited;
    /** Nacked: released to the broker at this instant (or when its lock runs out, whichever is first). */
    Instant releaseAt;
    /** Completes once the broker has taken the settlement, or with why it did not. */
    final CompletableFuture<Void> confirmed = new CompletableFuture<>();

    Acquired(ShareWorker holder, ConsumerRecord<byte[], byte[]> record, Instant lockDeadline, Instant acquiredAt) {
        this.holder = holder;
        this.record = record;
        this.lockDeadline = lockDeadline;
        this.acquiredAt = acquiredAt;
        this.message = new ConsumedMessage(record.topic(), record.partition(), record.offset(), record.key(),
                record.value(), java.util.List.of(record.headers().toArray()),
                record.deliveryCount().map(Short::intValue).orElse(1));
    }

    /** Where the record is, as clients name it in an ack. */
    Key key() {
        return new Key(record.partition(), record.offset());
    }

    /** A copy for {@link InFlight} at {@code now}: {@code out} with a client, or {@code waiting} for one. */
    InFlight.Message view(Instant now, String where, boolean showMessages) {
        return new InFlight.Message(record.partition(), record.offset(), message.attempt(),
                java.time.Duration.between(acquiredAt, now).toMillis(),
                java.time.Duration.between(now, lockDeadline).toMillis(), where,
                showMessages ? record.key() : null, showMessages ? record.value() : null);
    }

    record Key(int partition, long offset) {
    }
}
