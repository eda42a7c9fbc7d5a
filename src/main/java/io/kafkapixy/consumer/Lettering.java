package io.kafkapixy.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.kafkapixy.offset.Offer;
import io.kafkapixy.offset.OffsetTracker;
import org.apache.kafka.common.TopicPartition;

/**
 * The messages of one partition given up on ({@link DeadLettering}): out of circulation, their offers taken from the
 * tracker, so no client gets them, no client can ack, reject or renew them and no deadline runs, while the committed
 * offset stays below them until {@link #done} and an ack. A message whose retries ran out stays here while its dead
 * letter is written again after a refusal; a rejected one goes back to its client ({@link #restore}).
 *
 * <p>Not thread-safe: part of its {@link PartitionState}, under the group's lock.
 */
final class Lettering {

    /** Takes a message whose retries ran out; it stays here until it is lettered. */
    interface Exhausted {
        void giveUp(PartitionState p, ConsumedMessage m, int deliveries);
    }

    /** A message out of circulation: its record and offer as they were, its letter, and when its write is due again. */
    private static final class Letter {
        final PartitionState.Out out;
        final Offer offer;
        final ConsumedMessage message;
        final int deliveries;
        /** When its write is tried again after a refusal; null while a write is under way. */
        Instant retryAt;

        Letter(PartitionState.Out out, Offer offer, ConsumedMessage message, int deliveries) {
            this.out = out;
            this.offer = offer;
            this.message = message;
            this.deliveries = deliveries;
        }
    }

    /** A message whose dead letter is due to be written again, and how many deliveries it had. */
    record Due(ConsumedMessage message, int deliveries) {
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
     * Takes the offered message at {@code offset} out of circulation and returns it as its dead letter carries it:
     * with the delivery number {@code deliveries} (the deliveries it had, its last included), or, with -1, the one its
     * client got.
     */
    ConsumedMessage withdraw(long offset, int deliveries) {
        PartitionState.Out out = offered.remove(offset);
        Offer offer = tracker.withdraw(offset);
        int delivered = deliveries >= 0 ? deliveries : offer.retryNo() + 1;
        ConsumedMessage m = PartitionState.message(tp, out.record(), delivered);
        letters.put(offset, new Letter(out, offer, m, delivered));
        return m;
    }

    /** Whether the message at {@code offset} is out of circulation here. */
    boolean holds(long offset) {
        return letters.containsKey(offset);
    }

    /** The letter of {@code offset} is written; false when it is not here. The caller acks it. */
    boolean done(long offset) {
        return letters.remove(offset) != null;
    }

    /** A rejected message's letter was not written: it is back out with its client, its offer as it was. */
    void restore(long offset) {
        Letter l = letters.remove(offset);
        if (l != null) {
            offered.put(offset, l.out);
            tracker.putBack(l.offer);
        }
    }

    /** A letter was not written: it is written again from {@code at} on ({@link #due}). */
    void retryAt(long offset, Instant at) {
        Letter l = letters.get(offset);
        if (l != null) {
            l.retryAt = at;
        }
    }

    /** The letters whose write is due again at {@code now}, each marked under way. */
    List<Due> due(Instant now) {
        List<Due> due = null;
        for (Letter l : letters.values()) {
            if (l.retryAt != null && !now.isBefore(l.retryAt)) {
                l.retryAt = null;
                if (due == null) {
                    due = new ArrayList<>(1);
                }
                due.add(new Due(l.message, l.deliveries));
            }
        }
        return due == null ? List.of() : due;
    }

    boolean none() {
        return letters.isEmpty();
    }

    /** Adds a {@code dead_lettering} row per message to {@code messages}, as far as {@code rows} allow. */
    void view(Instant now, InFlight.Rows rows, List<InFlight.Message> messages) {
        for (Letter l : letters.values()) {
            if (rows.take()) {
                messages.add(new InFlight.Message(tp.partition(), l.message.offset(), l.deliveries,
                        Duration.between(l.out.since(), now).toMillis(),
                        l.retryAt == null ? 0 : Duration.between(now, l.retryAt).toMillis(), "dead_lettering",
                        rows.showMessages() ? l.out.record().key() : null,
                        rows.showMessages() ? l.out.record().value() : null));
            }
        }
    }
}
