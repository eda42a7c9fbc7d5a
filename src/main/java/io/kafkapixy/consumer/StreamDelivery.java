package io.kafkapixy.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.kafkapixy.errors.PixyException;
import org.apache.kafka.common.TopicPartition;

/**
 * The member's streams, under its {@link GroupState}'s lock: attaching them to their topics, their credits, their
 * acks and nacks, and their end, which gives back at once what they held. What each stream holds is its own
 * ({@link MessageStream}); this class settles it against the partitions.
 */
final class StreamDelivery {

    private final GroupState state;

    StreamDelivery(GroupState state) {
        this.state = state;
    }

    /**
     * Attaches a stream to its topics (subscribing to the ones new here). Returns false when this member is leaving
     * (the caller gets a new one).
     *
     * @throws PixyException shutting down
     */
    boolean attach(MessageStream stream) {
        return state.locked(() -> {
            if (state.leaving()) {
                return false;
            }
            Instant now = state.clock.instant();
            for (String topic : stream.topics()) {
                state.subscribed(topic, now).addStream(stream);
            }
            stream.attachTo(this);
            return true;
        });
    }

    /** The stream's client can take {@code n} more messages: serve it what is ready. */
    void credit(MessageStream stream, long n) {
        state.locked(() -> {
            if (stream.ended()) {
                return;
            }
            stream.addCredits(n);
            Instant now = state.clock.instant();
            for (String topic : stream.topics()) {
                TopicState t = state.topics.get(topic);
                if (t != null) {
                    state.dispatch(t, now);
                }
            }
            state.fetches.refillIfWanted();
        });
    }

    /** What became of a stream's acks: those of partitions not held here, and how many were not out with a client. */
    record StreamAcks(List<MessageStream.Ack> elsewhere, int ignored) {
    }

    /**
     * Acks through a stream, all under one hold of the lock: as {@link GroupState#ack} each, with one dispatch per
     * topic at the end; but only of messages out with a client, so a stray ack (a default partition 0, offset 0)
     * cannot mark a message nobody has seen as done.
     */
    StreamAcks acksFromStream(MessageStream stream, List<MessageStream.Ack> acks) {
        return state.locked(() -> {
            List<MessageStream.Ack> notHere = new ArrayList<>(0);
            int ignored = 0;
            Map<String, int[]> changedByTopic = new HashMap<>(2);
            for (MessageStream.Ack a : acks) {
                TopicPartition tp = new TopicPartition(a.topic(), a.partition());
                int attempt = stream.release(tp, a.offset());
                PartitionState p = state.assigned.get(tp);
                if (p == null) {
                    notHere.add(a);
                    continue;
                }
                if (!p.isOffered(a.offset())) {
                    ignored++;
                    continue;
                }
                int[] changed = changedByTopic.computeIfAbsent(a.topic(), t -> new int[1]);
                if (p.ack(a.offset())) {
                    changed[0]++;
                }
                if (attempt != 1) {
                    // a first delivery went to this stream alone; a later one may have gone to others before it
                    releaseEverywhere(tp, a.offset());
                }
            }
            if (changedByTopic.isEmpty()) {
                return new StreamAcks(notHere, ignored);
            }
            state.commits.ackTaken();
            Instant now = state.clock.instant();
            changedByTopic.forEach((topic, changed) -> {
                TopicState t = state.topics.get(topic);
                if (t != null) {
                    t.metrics.acked(changed[0]);
                    if (t.hasTakers()) {
                        state.dispatch(t, now);
                    }
                }
            });
            state.fetches.refillIfWanted();
            return new StreamAcks(notHere, ignored);
        });
    }

    /** Under the lock: an acked message is held by no stream any more, whichever client acked it. */
    void releaseEverywhere(TopicPartition tp, long offset) {
        TopicState t = state.topics.get(tp.topic());
        if (t != null) {
            for (MessageStream s : t.streams()) {
                s.release(tp, offset);
            }
        }
    }

    /**
     * A stream gives back a message it holds: offered again after {@code delay}. False when the stream does not hold
     * it or its partition is no longer here.
     *
     * @throws PixyException {@code delay} is longer than {@code consumer.ack_timeout}
     */
    boolean nack(MessageStream stream, TopicPartition tp, long offset, Duration delay) {
        Duration ackTimeout = state.config.ackTimeout();
        if (delay.compareTo(ackTimeout) > 0) {
            // a longer one would hold a revoked partition (and the group's rebalance) waiting for it
            throw PixyException.badRequest("a nack's delay_ms (" + delay.toMillis()
                    + ") must not be longer than consumer.ack_timeout (" + ackTimeout.toMillis() + " ms)");
        }
        return state.locked(() -> {
            int attempt = stream.release(tp, offset);
            PartitionState p = state.assigned.get(tp);
            if (attempt < 0 || p == null) {
                return false;
            }
            Instant now = state.clock.instant();
            if (!p.giveBack(offset, attempt, now.plus(delay))) {
                return false;
            }
            TopicState t = state.topics.get(tp.topic());
            if (t != null && delay.isZero()) {
                state.dispatch(t, now);
            }
            return true;
        });
    }

    /**
     * Ends a stream: it leaves its topics and what it held is offered again at once (to the other clients, now).
     * {@code reason} goes to its sink; null when its client ended it. Returns how many messages were given back.
     */
    int detach(MessageStream stream, PixyException reason) {
        return state.locked(() -> {
            MessageStream.Left left = stream.end();
            if (left == null) {
                return 0;
            }
            Instant now = state.clock.instant();
            int givenBack = 0;
            for (ConsumedMessage m : left.unsent()) {
                // taken but never sent: the same delivery again, as if it had never been taken
                PartitionState p = state.assigned.get(new TopicPartition(m.topic(), m.partition()));
                if (p != null && p.undoOffer(m.offset(), m.attempt(), now)) {
                    givenBack++;
                }
            }
            for (var held : left.held().entrySet()) {
                PartitionState p = state.assigned.get(held.getKey());
                if (p == null) {
                    continue;
                }
                for (var offer : held.getValue().entrySet()) {
                    if (p.giveBack(offer.getKey(), offer.getValue(), now)) {
                        givenBack++;
                    }
                }
            }
            for (String topic : stream.topics()) {
                TopicState t = state.topics.get(topic);
                if (t != null) {
                    t.removeStream(stream, now);
                    state.dispatch(t, now);
                }
            }
            state.fetches.refillIfWanted();
            if (reason != null) {
                stream.endedByProxy(reason, givenBack);
            }
            return givenBack;
        });
    }

    /** Under the lock: the member is shutting down; its streams get nothing more (their acks are still taken). */
    void drainAll() {
        all().forEach(MessageStream::startDraining);
    }

    /** Under the lock: every stream attached to one of the topics, once each. */
    Set<MessageStream> all() {
        Set<MessageStream> all = new LinkedHashSet<>();
        state.topics.values().forEach(t -> all.addAll(t.streams()));
        return all;
    }
}
