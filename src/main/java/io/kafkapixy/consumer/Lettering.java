package io.kafkapixy.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.kafkapixy.offset.Offer;
import io.kafkapixy.offset.OffsetTracker;
import org.apache.kafka.common.TopicPartition;

/**
 * The messages of one partition whose dead letter is being written ({@link DeadLettering}): out of circulation, their
 * offers taken from the tracker, so no client gets them and no deadline runs, while the committed offset stays below
 * them until {@link #done} and an ack.
 *
 * <p>Not thread-safe: part of its {@link PartitionState}, under the group's lock.
 */
final class Lettering {

    /** Takes a message whose retries ran out; it is out of circulation until it is lettered or comes back. */
    interface Exhausted {
        void giveUp(PartitionState p, ConsumedMessage m, int deliveries);
    }

    /** A message taken out of circulation: its record, its offer as it was, and since when. */
    private record Letter(PartitionState.Out out, Offer offer, Instant since) {
    }

    private final TopicPartition tp;
    private final OffsetTracker tracker;
    /** The partition's messages out with clients, shared with it. */
    private final Map<Long, PartitionState.Out> offered;
    private final Map<Long, Letter> letters = new HashMap<>(0);

    Lettering(TopicPartition tp, OffsetTracker tracker, Map<Long, PartitionState.Out> offered) {
        this.tp = tp;
        this.tracker = tracker;
        this.offered = offered;
    }

    /**
     * Takes the offered message at {@code offset} out of circulation; returns it as its client last got it, or with
     * {@code deliveries} (≥ 0) as its delivery number.
     */
    ConsumedMessage withdraw(long offset, Instant now, int deliveries) {
        Letter l = new Letter(offered.remove(offset), tracker.withdraw(offset), now);
        letters.put(offset, l);
        int attempt = deliveries >= 0 ? deliveries : l.offer.retryNo() + 1;
        return PartitionState.message(tp, l.out.record(), attempt);
    }

    /** The letter of {@code offset} is written; false when it is not here. The caller acks it. */
    boolean done(long offset) {
        return letters.remove(offset) != null;
    }

    /**
     * The letter of {@code offset} was not written: the message is back out with its client, with its offer as it
     * was; with {@code retryAt} its retries have still run out at {@code retryAt}, when the write is tried again.
     */
    void restore(long offset, Instant retryAt) {
        Letter l = letters.remove(offset);
        if (l == null || tracker.isAcked(offset)) {
            // a client's late ack took it meanwhile
            return;
        }
        offered.put(offset, l.out);
        tracker.putBack(retryAt == null ? l.offer : new Offer(offset, l.offer.retryNo() - 1, retryAt));
    }

    boolean none() {
        return letters.isEmpty();
    }

    /** Adds a {@code dead_lettering} row per message to {@code messages}, as far as {@code rows} allow. */
    void view(Instant now, InFlight.Rows rows, List<InFlight.Message> messages) {
        for (Letter l : letters.values()) {
            if (rows.take()) {
                messages.add(new InFlight.Message(tp.partition(), l.offer.offset(), l.offer.retryNo() + 1,
                        Duration.between(l.out.since(), now).toMillis(), 0, "dead_lettering",
                        rows.showMessages() ? l.out.record().key() : null,
                        rows.showMessages() ? l.out.record().value() : null));
            }
        }
    }
}
