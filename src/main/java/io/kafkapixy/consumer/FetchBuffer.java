package io.kafkapixy.consumer;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.Function;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * The member's fetched records, under its {@link GroupState}'s lock: the owning thread hands in each poll's records
 * and takes out which partitions to pause (a buffer full, or too many offers awaiting acks); while every partition is
 * paused it waits here until one can take more, and request threads wake it when a buffer empties.
 */
final class FetchBuffer {

    private static final System.Logger LOG = System.getLogger(FetchBuffer.class.getName());
    /** Records buffered per partition before fetching pauses; a bound on memory, whatever the request limit. */
    static final int MAX_FETCH_BUFFER = 256;

    private final GroupState state;
    private final int size;
    /** Signalled when a paused partition can take more records, while the owning thread waits for that. */
    private final Condition refill;

    FetchBuffer(GroupState state) {
        this.state = state;
        this.size = Math.min(state.config.channelBufferSize(), MAX_FETCH_BUFFER);
        this.refill = state.lock.newCondition();
    }

    /**
     * Takes in one poll's records and the fetch positions known after it, serves parked requests, drops exhausted
     * retries, expires idle topics, and returns the held partitions whose fetching should stop: a buffer of
     * {@code channel_buffer_size} records (at most {@value #MAX_FETCH_BUFFER}) or more than
     * {@code max_pending_messages} offers awaiting acks (the original's pending limit).
     */
    Set<TopicPartition> absorb(ConsumerRecords<byte[], byte[]> records, Map<TopicPartition, Long> positions,
                               Instant now) {
        Set<TopicPartition> full = new HashSet<>();
        state.locked(() -> {
            for (TopicPartition tp : records.partitions()) {
                PartitionState p = state.assigned.get(tp);
                if (p != null) {
                    for (ConsumerRecord<byte[], byte[]> record : records.records(tp)) {
                        p.addFetched(record);
                    }
                }
            }
            positions.forEach((tp, position) -> {
                PartitionState p = state.assigned.get(tp);
                if (p != null) {
                    p.fetchedUpTo(position);
                }
            });
            for (PartitionState p : state.assigned.values()) {
                p.takeDueRetry(now, state.config.maxRetries());
            }
            for (TopicState t : state.topics.values()) {
                state.dispatch(t, now);
                if (t.shouldExpire(now, state.config.subscriptionTimeout(), state.config.ackTimeout())) {
                    LOG.log(Level.INFO, "Topic subscription expired: group={0}, topic={1}", state.group, t.topic);
                    t.expire();
                }
            }
            for (PartitionState p : state.assigned.values()) {
                boolean pause = p.shouldPauseFetching(size, state.config.maxPendingMessages());
                p.paused(pause);
                if (pause) {
                    full.add(p.tp);
                }
            }
        });
        return full;
    }

    /** Newly initialized partitions join their topics (a topic nobody asked for here is created expired). */
    void add(Map<TopicPartition, PartitionState> states) {
        state.locked(() -> {
            Instant now = state.clock.instant();
            states.forEach((tp, p) -> {
                state.assigned.put(tp, p);
                if (state.letters.enabled()) {
                    p.giveUpTo(state.letters);
                }
                state.topics.computeIfAbsent(tp.topic(), name -> {
                    TopicState t = new TopicState(name, now, state.metrics.topic(state.group, name, state.mode()));
                    t.expire();
                    return t;
                }).add(p);
            });
            state.dispatchAll(now);
        });
    }

    /**
     * Publishes each topic's gauges and notes each partition's end for {@link InFlight}. {@code endOffsets} gives a
     * partition's end as far as the consumer knows it (null when it does not); {@code partitionCounts} a topic's
     * number of partitions as far as the consumer knows them.
     */
    void reportState(Function<TopicPartition, Long> endOffsets, Map<String, Integer> partitionCounts) {
        state.locked(() -> {
            Map<String, Long> lag = new HashMap<>();
            Map<String, Instant> oldest = new HashMap<>();
            state.assigned.forEach((tp, p) -> {
                Long end = endOffsets.apply(tp);
                if (end != null) {
                    p.endOffset(end);
                    lag.merge(tp.topic(), Math.max(0, end - p.committableOffset()), Long::sum);
                }
                Instant since = p.oldestOut();
                if (since != null) {
                    oldest.merge(tp.topic(), since, (a, b) -> a.isBefore(b) ? a : b);
                }
            });
            for (TopicState t : state.topics.values()) {
                t.partitionCount(partitionCounts.getOrDefault(t.topic, 0));
                t.metrics.state(t.waitingCount(), t.unackedCount(), lag.getOrDefault(t.topic, 0L),
                        oldest.get(t.topic));
            }
        });
    }

    /**
     * The owning thread, with every held partition paused, waits here (at most {@code max}) until one of them can
     * take more records: its buffer half empty and its offers within {@code max_pending_messages}. Polling Kafka
     * instead would sleep the whole poll interval while requests empty the buffers.
     */
    void awaitRefill(Duration max) {
        state.lock.lock();
        try {
            if (anyCanRefill()) {
                return;
            }
            refill.await(max.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            state.lock.unlock();
        }
    }

    private boolean anyCanRefill() {
        int lowWater = Math.max(1, size / 2);
        for (PartitionState p : state.assigned.values()) {
            if (p.canRefill(lowWater, state.config.maxPendingMessages())) {
                return true;
            }
        }
        return false;
    }

    /** Under the lock: wakes the owning thread if it waits for a refill and one is possible now. */
    void refillIfWanted() {
        if (state.lock.hasWaiters(refill) && anyCanRefill()) {
            refill.signal();
        }
    }

    /** Under the lock: wakes the owning thread from its wait for a refill (a topic to subscribe, a shutdown). */
    void wakeOwner() {
        refill.signal();
    }

    /** True while the owning thread waits in {@link #awaitRefill} (for tests and diagnostics). */
    boolean awaitingRefill() {
        return state.locked(() -> state.lock.hasWaiters(refill));
    }
}
