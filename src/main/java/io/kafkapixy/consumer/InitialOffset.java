package io.kafkapixy.consumer;

import java.time.Duration;
import java.util.Optional;

import io.kafkapixy.offset.store.Committed;
import io.kafkapixy.offset.OffsetTracker;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;

/**
 * Where a newly assigned partition starts, by the original's rules, from the group's committed offset and the
 * partition's oldest and newest offsets:
 * <ul>
 *   <li>no committed offset (-1): start at the newest, and commit it at once (a new group skips older
 *       messages);</li>
 *   <li>committed beyond the newest: fetch from the newest, but keep the committed offset, so messages below it are
 *       skipped and the first one returned is the one at the committed offset;</li>
 *   <li>committed below the oldest (expired, or -2, "the oldest"): start at the oldest and commit that;</li>
 *   <li>otherwise start at the committed offset, skipping what its sparse-ack metadata says is acked.</li>
 * </ul>
 *
 * @param commit what to commit at once, when the start differs from what is committed
 */
record InitialOffset(OffsetTracker tracker, long fetchFrom, Optional<OffsetAndMetadata> commit) {

    static InitialOffset of(Committed committed, long oldest, long newest, Duration ackTimeout) {
        if (committed.offset() == -1) {
            OffsetTracker tracker = new OffsetTracker(newest, "", ackTimeout);
            return new InitialOffset(tracker, newest, Optional.of(new OffsetAndMetadata(newest, "")));
        }
        OffsetTracker tracker = new OffsetTracker(committed.offset(), committed.metadata(), ackTimeout);
        if (committed.offset() > newest) {
            return new InitialOffset(tracker, newest, Optional.empty());
        }
        if (committed.offset() < oldest) {
            tracker.adjust(oldest);
            return new InitialOffset(tracker, oldest,
                    Optional.of(new OffsetAndMetadata(tracker.offset(), tracker.metadata())));
        }
        return new InitialOffset(tracker, committed.offset(), Optional.empty());
    }
}
