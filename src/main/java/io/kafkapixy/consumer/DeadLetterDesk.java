package io.kafkapixy.consumer;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.TopicPartition;

/**
 * A classic group member's side of {@link DeadLettering}: a rejected message, and one whose retries ran out, taken
 * out of circulation ({@link Lettering}) while its dead letter is written, then acked, or put back.
 *
 * <p>Part of its {@link GroupState}; its methods take the group's lock.
 */
final class DeadLetterDesk implements Lettering.Exhausted {

    private final GroupState state;
    private final DeadLettering letters;

    DeadLetterDesk(GroupState state, DeadLettering letters) {
        this.state = state;
        this.letters = letters;
    }

    /** Whether messages are dead-lettered here. */
    boolean enabled() {
        return letters.enabled();
    }

    /**
     * A client rejects a message it holds: dead-lettered when a dead-letter topic is set, then acked, and counted as
     * a reject besides. Null when it is not out with a client of the group here (nothing is settled); else completes
     * once it is acked, or fails when the dead letter was not written (the message is out with its client again, as
     * before).
     */
    CompletableFuture<Void> reject(String topic, int partition, long offset) {
        return state.locked(() -> {
            TopicPartition tp = new TopicPartition(topic, partition);
            PartitionState p = state.assigned.get(tp);
            if (!letters.enabled()) {
                if (p == null || !p.isOut(offset)) {
                    return null;
                }
                state.ack(topic, partition, offset);
                p.metrics().rejected();
                return CompletableFuture.<Void>completedFuture(null);
            }
            Instant now = state.clock.instant();
            ConsumedMessage m = p == null ? null : p.withdraw(offset);
            if (m == null) {
                return null;
            }
            state.streams.releaseEverywhere(tp, offset);
            DeadLetter letter = new DeadLetter(state.group, m, DeadLetter.Reason.REJECTED, m.attempt(), now);
            return letters.send(letter, p.metrics(), new Settle(p, offset, null)).thenRun(() ->
                    p.metrics().rejected());
        });
    }

    /** Under the lock: a message whose retries ran out is on its way to the dead-letter topic. */
    @Override
    public void giveUp(PartitionState p, ConsumedMessage m, int deliveries) {
        Instant now = state.clock.instant();
        DeadLetter letter = new DeadLetter(state.group, m, DeadLetter.Reason.RETRIES_EXHAUSTED, deliveries, now);
        letters.send(letter, p.metrics(), new Settle(p, m.offset(), DeadLettering.RETRY_DELAY));
    }

    /** Settles or puts back one message; {@code retryAfter} null: back with its client, else given up again then. */
    private final class Settle implements DeadLettering.Held {
        private final PartitionState p;
        private final long offset;
        private final java.time.Duration retryAfter;

        Settle(PartitionState p, long offset, java.time.Duration retryAfter) {
            this.p = p;
            this.offset = offset;
            this.retryAfter = retryAfter;
        }

        @Override
        public CompletableFuture<Void> written() {
            state.locked(() -> {
                // the partition may have gone meanwhile: its next holder offers the message again
                if (state.assigned.get(p.tp) == p && p.lettered(offset)) {
                    state.commits.ackTaken();
                    p.metrics().acked();
                    TopicState t = state.topics.get(p.tp.topic());
                    if (t != null && t.hasTakers()) {
                        state.dispatch(t, state.clock.instant());
                    }
                    state.fetches.refillIfWanted();
                }
            });
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void notWritten() {
            state.locked(() -> {
                Instant now = state.clock.instant();
                if (retryAfter == null) {
                    p.lettering.restore(offset);
                } else {
                    // its retries have run out: it stays out of circulation, written again by the owning thread
                    p.lettering.retryAt(offset, now.plus(retryAfter));
                }
                state.commits.ackTaken();
            });
        }
    }
}
