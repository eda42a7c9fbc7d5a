package io.kafkapixy.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What the member commits, under its {@link GroupState}'s lock: the offsets (with sparse acks) of the partitions it
 * holds, changed or all, and the waits for the acks of a partition's offered messages before the partition goes.
 */
final class CommitBook {

    /** Longest real-time wait in {@link #awaitAcks} before the clock is read again (a fake clock moves by itself). */
    private static final Duration ACK_WAIT_SLICE = Duration.ofMillis(100);

    private final GroupState state;
    /** Signalled on every ack and at shutdown, while the owning thread waits in {@link #awaitAcks}. */
    private final Condition acked;

    CommitBook(GroupState state) {
        this.state = state;
        this.acked = state.lock.newCondition();
    }

    /** Under the lock: an ack was taken (or a shutdown began): a wait for acks looks again. */
    void ackTaken() {
        acked.signalAll();
    }

    /** True when no message of a held partition is out with a client (nothing to redeliver or commit soon). */
    boolean nothingOut() {
        return state.locked(() -> state.assigned.values().stream().allMatch(p -> p.offeredCount() == 0));
    }

    /** The current offsets (with sparse acks) of every partition held, changed or not; nothing is marked submitted. */
    Map<TopicPartition, OffsetAndMetadata> currentOffsets() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        state.locked(() -> state.assigned.forEach((tp, p) -> offsets.put(tp, p.current())));
        return offsets;
    }

    /** Offsets (with sparse acks) that changed since they were last submitted, marked as submitted. */
    Map<TopicPartition, OffsetAndMetadata> changedOffsets() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        state.locked(() -> state.assigned.forEach((tp, p) -> p.commitIfChanged().ifPresent(o -> offsets.put(tp, o))));
        return offsets;
    }

    /** A commit of these partitions failed: the next {@link #changedOffsets()} carries them again. */
    void commitFailed(Collection<TopicPartition> partitions) {
        state.locked(() -> partitions.stream().map(state.assigned::get).filter(p -> p != null)
                .forEach(PartitionState::commitFailed));
    }

    List<TopicPartition> assignedPartitions() {
        return state.locked(() -> new ArrayList<>(state.assigned.keySet()));
    }

    /** The current positions of the held partitions, changed or not (for the final commit). */
    Map<TopicPartition, OffsetAndMetadata> positions() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        state.locked(() -> state.assigned.forEach((tp, p) -> offsets.put(tp, p.position())));
        return offsets;
    }

    /**
     * Stops offering from these partitions and waits until what they offered is acked or overdue by
     * {@code ack_timeout} (as the original waits on a rebalance), taking acks meanwhile; at most until {@code limit},
     * and never past the shutdown's deadline once shutdown began.
     */
    void awaitAcks(Collection<TopicPartition> partitions, Instant limit) {
        state.lock.lock();
        try {
            List<PartitionState> revoking = partitions.stream().map(state.assigned::get).filter(p -> p != null)
                    .toList();
            revoking.forEach(PartitionState::startRevoking);
            while (true) {
                Instant now = state.clock.instant();
                Instant deadline = state.shutdownDeadline();
                Instant until = deadline != null && deadline.isBefore(limit) ? deadline : limit;
                long wait = Math.min(nanosUntil(now, until), revoking.stream()
                        .mapToLong(p -> p.waitForAcks(now).toNanos()).max().orElse(0));
                if (wait <= 0) {
                    return;
                }
                acked.await(Math.min(wait, ACK_WAIT_SLICE.toNanos()), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            state.lock.unlock();
        }
    }

    /** Nanoseconds from now until {@code until}, saturating ({@link Instant#MAX} means no limit). */
    private static long nanosUntil(Instant now, Instant until) {
        Duration d = Duration.between(now, until);
        return d.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE : d.toNanos();
    }

    /** True while the owning thread waits in {@link #awaitAcks} (for tests and diagnostics). */
    boolean awaitingAcks() {
        return state.locked(() -> state.lock.hasWaiters(acked));
    }

    /** Removes the partitions and returns their positions, atomically, so no ack lands in between. */
    Map<TopicPartition, OffsetAndMetadata> takeFinal(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        state.locked(() -> partitions.forEach(tp -> {
            PartitionState p = state.assigned.remove(tp);
            if (p == null) {
                return;
            }
            offsets.put(tp, p.position());
            TopicState t = state.topics.get(tp.topic());
            if (t != null) {
                t.remove(p);
                t.streams().forEach(stream -> stream.forget(tp));
            }
        }));
        return offsets;
    }
}
