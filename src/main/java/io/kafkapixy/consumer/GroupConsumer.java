package io.kafkapixy.consumer;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.offset.OffsetTracker;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * This instance's member of one consumer group (reference §4, design.md §3): one {@link Consumer} owned by one
 * thread, whose subscription is the set of topics with live requests here.
 *
 * <p>Request threads park in {@link #consume} and are served from fetched records under {@link #lock}; the owning
 * thread polls, follows rebalances (initial offsets per §4.8, a final commit on revoke), commits every
 * {@code offsets_commit_interval}, pauses partitions that are full or over {@code max_pending_messages}, and
 * expires idle topics (§4.7). When the last topic expires it leaves the group and the member is done: later
 * requests get a new member from {@link Consumers}.
 */
final class GroupConsumer {

    private static final System.Logger LOG = System.getLogger(GroupConsumer.class.getName());
    /** How often the owning thread looks at subscriptions, retries, pauses and commits when no records arrive. */
    static final Duration POLL_INTERVAL = Duration.ofMillis(100);
    private static final Duration KAFKA_CALL_TIMEOUT = Duration.ofSeconds(30);

    private final String group;
    private final ConsumerConfig config;
    private final Clock clock;
    private final Consumer<byte[], byte[]> kafka;
    private final Runnable onDone;
    private final Thread thread;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition acked = lock.newCondition();
    // guarded by lock
    private final Map<String, TopicState> topics = new HashMap<>();
    private final Map<TopicPartition, PartitionState> assigned = new HashMap<>();
    private boolean closed;
    private boolean shuttingDown;

    // owning thread only
    private Set<String> subscribed = Set.of();
    private final Set<TopicPartition> paused = new HashSet<>();
    private Instant nextCommit;

    GroupConsumer(String group, ConsumerConfig config, Clock clock, Consumer<byte[], byte[]> kafka, Runnable onDone) {
        this.group = group;
        this.config = config;
        this.clock = clock;
        this.kafka = kafka;
        this.onDone = onDone;
        this.nextCommit = clock.instant().plus(config.offsetsCommitInterval());
        this.thread = Thread.ofPlatform().name("group-" + group).daemon().unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    /**
     * Parks a request for a message of {@code topic} until {@code arrival} + {@code long_polling_timeout}. Returns
     * null when this member has left the group (the caller gets a new member).
     *
     * @throws PixyException long polling timeout, too many requests, or shutting down
     */
    ConsumedMessage consume(String topic, Instant arrival) {
        Instant deadline = arrival.plus(config.longPollingTimeout());
        WaitingRequest r;
        TopicState t;
        lock.lock();
        try {
            if (closed) {
                if (shuttingDown) {
                    throw PixyException.shuttingDown();
                }
                return null;
            }
            t = topics.computeIfAbsent(topic, name -> new TopicState(name, arrival));
            r = t.park(arrival, deadline, config.channelBufferSize());
            t.dispatch(clock.instant(), config.maxPendingMessages(), config.maxRetries());
        } finally {
            lock.unlock();
        }
        return await(t, r);
    }

    private ConsumedMessage await(TopicState t, WaitingRequest r) {
        long ttl = Duration.between(clock.instant(), r.deadline).toNanos();
        try {
            return r.result.get(Math.max(ttl, 0), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            lock.lock();
            try {
                // A message handed over at the last moment is still delivered; otherwise the request gives up.
                if (!r.result.isDone() && t.unpark(r)) {
                    r.result.completeExceptionally(PixyException.longPollTimeout());
                }
            } finally {
                lock.unlock();
            }
            return result(r);
        } catch (ExecutionException e) {
            throw unwrap(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw PixyException.shuttingDown();
        }
    }

    private static ConsumedMessage result(WaitingRequest r) {
        try {
            return r.result.join();
        } catch (java.util.concurrent.CompletionException e) {
            throw unwrap(e.getCause());
        }
    }

    private static PixyException unwrap(Throwable cause) {
        return cause instanceof PixyException p ? p
                : new PixyException(ErrorKind.INTERNAL, String.valueOf(cause.getMessage()), cause);
    }

    /** Acks a message of a partition assigned here; false when the partition is not (or no longer) assigned here. */
    boolean ack(String topic, int partition, long offset) {
        lock.lock();
        try {
            PartitionState p = assigned.get(new TopicPartition(topic, partition));
            if (p == null) {
                return false;
            }
            p.ack(offset);
            acked.signalAll();
            TopicState t = topics.get(topic);
            if (t != null && t.hasWaiting()) {
                t.dispatch(clock.instant(), config.maxPendingMessages(), config.maxRetries());
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Answers parked requests {@code service is shutting down}, then commits and leaves the group. */
    void shutdown() {
        lock.lock();
        try {
            closed = true;
            shuttingDown = true;
            topics.values().forEach(t -> t.failAll(PixyException.shuttingDown()));
            acked.signalAll();
        } finally {
            lock.unlock();
        }
    }

    int parkedRequests() {
        lock.lock();
        try {
            int n = 0;
            for (TopicState t : topics.values()) {
                n += t.waitingCount();
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** True once this member takes no more requests (it left the group or is leaving). */
    boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    /** Waits for the owning thread to finish leaving the group. */
    boolean awaitDone(Duration timeout) throws InterruptedException {
        return thread.join(timeout);
    }

    private void run() {
        try {
            while (true) {
                Set<String> wanted = wantedTopics();
                if (wanted.isEmpty()) {
                    break;
                }
                if (!wanted.equals(subscribed)) {
                    LOG.log(Level.INFO, "Group {0} subscribes to {1}", group, wanted);
                    kafka.subscribe(wanted, new Rebalance());
                    subscribed = wanted;
                }
                ConsumerRecords<byte[], byte[]> records = kafka.poll(POLL_INTERVAL);
                Instant now = clock.instant();
                Set<TopicPartition> toPause = new HashSet<>();
                lock.lock();
                try {
                    for (ConsumerRecord<byte[], byte[]> record : records) {
                        PartitionState p = assigned.get(new TopicPartition(record.topic(), record.partition()));
                        if (p != null) {
                            p.addFetched(record);
                        }
                    }
                    for (TopicState t : topics.values()) {
                        t.dispatch(now, config.maxPendingMessages(), config.maxRetries());
                        if (t.shouldExpire(now, config.subscriptionTimeout(), config.ackTimeout())) {
                            LOG.log(Level.INFO, "Topic subscription expired: group={0}, topic={1}", group, t.topic);
                            t.expire();
                        }
                    }
                    for (PartitionState p : assigned.values()) {
                        if (p.shouldPauseFetching(config.channelBufferSize(), config.maxPendingMessages())) {
                            toPause.add(p.tp);
                        }
                    }
                } finally {
                    lock.unlock();
                }
                updatePaused(toPause);
                if (!now.isBefore(nextCommit)) {
                    commitChanged();
                    nextCommit = now.plus(config.offsetsCommitInterval());
                }
            }
            leave(PixyException.shuttingDown());
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "Group consumer failed: group=" + group, e);
            leave(new PixyException(ErrorKind.INTERNAL, "consumer of group " + group + " failed: " + e.getMessage()));
        }
    }

    /** Topics with live requests; when none is left the member is closed to new requests, under the lock. */
    private Set<String> wantedTopics() {
        lock.lock();
        try {
            if (shuttingDown) {
                return Set.of();
            }
            Set<String> wanted = new TreeSet<>();
            topics.values().removeIf(t -> t.expired() && !t.hasPartitions() && !t.hasWaiting());
            for (TopicState t : topics.values()) {
                if (!t.expired()) {
                    wanted.add(t.topic);
                }
            }
            if (wanted.isEmpty()) {
                closed = true;
            }
            return wanted;
        } finally {
            lock.unlock();
        }
    }

    private void updatePaused(Set<TopicPartition> toPause) {
        Set<TopicPartition> resume = new HashSet<>(paused);
        resume.removeAll(toPause);
        Set<TopicPartition> pause = new HashSet<>(toPause);
        pause.removeAll(paused);
        Set<TopicPartition> assignment = kafka.assignment();
        pause.retainAll(assignment);
        resume.retainAll(assignment);
        if (!pause.isEmpty()) {
            kafka.pause(pause);
        }
        if (!resume.isEmpty()) {
            kafka.resume(resume);
        }
        paused.clear();
        paused.addAll(toPause);
        paused.retainAll(assignment);
    }

    private void commitChanged() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        lock.lock();
        try {
            assigned.forEach((tp, p) -> p.commitIfChanged().ifPresent(o -> offsets.put(tp, o)));
        } finally {
            lock.unlock();
        }
        if (offsets.isEmpty()) {
            return;
        }
        kafka.commitAsync(offsets, (committed, error) -> {
            if (error != null) {
                LOG.log(Level.WARNING, "Failed to commit offset: group={0}, error={1}", group, error.getMessage());
                resubmit(offsets.keySet());
            }
        });
    }

    /** Makes the next periodic commit carry these partitions again. */
    private void resubmit(Collection<TopicPartition> partitions) {
        lock.lock();
        try {
            for (TopicPartition tp : partitions) {
                PartitionState p = assigned.get(tp);
                if (p != null) {
                    p.commitFailed();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Leaves the group: unsubscribing revokes every partition (which commits its final position), then the consumer
     * is closed. Requests still parked are answered: 503 when shutting down, else the failure.
     */
    private void leave(PixyException answerParked) {
        lock.lock();
        try {
            closed = true;
        } finally {
            lock.unlock();
        }
        try {
            kafka.unsubscribe();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Failed to leave group " + group + " cleanly", e);
        }
        try {
            kafka.close(KAFKA_CALL_TIMEOUT);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Failed to close consumer of group " + group, e);
        }
        lock.lock();
        try {
            PixyException answer = shuttingDown ? PixyException.shuttingDown() : answerParked;
            topics.values().forEach(t -> t.failAll(answer));
            assigned.clear();
        } finally {
            lock.unlock();
        }
        LOG.log(Level.INFO, "Group {0} left", group);
        onDone.run();
    }

    private void commitFinal(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        lock.lock();
        try {
            for (TopicPartition tp : partitions) {
                PartitionState p = assigned.get(tp);
                if (p != null) {
                    offsets.put(tp, p.position());
                }
            }
        } finally {
            lock.unlock();
        }
        if (!offsets.isEmpty()) {
            try {
                kafka.commitSync(offsets, KAFKA_CALL_TIMEOUT);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Failed to commit offset: group={0}, offsets={1}, error={2}", group, offsets,
                        e.getMessage());
            }
        }
    }

    /** Follows Kafka's rebalances on the owning thread (called from inside {@code poll}). */
    private final class Rebalance implements ConsumerRebalanceListener {

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            Set<TopicPartition> set = new HashSet<>(partitions);
            Map<TopicPartition, OffsetAndMetadata> committed = kafka.committed(set, KAFKA_CALL_TIMEOUT);
            Map<TopicPartition, Long> begin = kafka.beginningOffsets(set, KAFKA_CALL_TIMEOUT);
            Map<TopicPartition, Long> end = kafka.endOffsets(set, KAFKA_CALL_TIMEOUT);
            Map<TopicPartition, OffsetAndMetadata> adjusted = new HashMap<>();
            Map<TopicPartition, PartitionState> states = new HashMap<>();
            for (TopicPartition tp : set) {
                InitialOffset initial = InitialOffset.of(committed.get(tp), begin.get(tp), end.get(tp),
                        config.ackTimeout());
                if (initial.tracker().badMetadata()) {
                    LOG.log(Level.WARNING, "Bad sparse acks: group={0}, partition={1}, metadata={2}", group, tp,
                            committed.get(tp).metadata());
                }
                kafka.seek(tp, initial.fetchFrom());
                PartitionState p = new PartitionState(tp, initial.tracker(), committed.get(tp));
                initial.commit().ifPresent(o -> {
                    LOG.log(Level.INFO, "Adjusted offset: group={0}, partition={1}, new={2}", group, tp, o.offset());
                    adjusted.put(tp, p.position());
                });
                states.put(tp, p);
            }
            if (!adjusted.isEmpty()) {
                try {
                    kafka.commitSync(adjusted, KAFKA_CALL_TIMEOUT);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "Failed to commit adjusted offsets: group={0}, error={1}", group,
                            e.getMessage());
                    states.forEach((tp, p) -> {
                        if (adjusted.containsKey(tp)) {
                            p.commitFailed();
                        }
                    });
                }
            }
            lock.lock();
            try {
                states.forEach((tp, p) -> {
                    assigned.put(tp, p);
                    topics.computeIfAbsent(tp.topic(), name -> {
                        TopicState t = new TopicState(name, clock.instant());
                        t.expire();
                        return t;
                    }).add(p);
                });
                Instant now = clock.instant();
                topics.values().forEach(t -> t.dispatch(now, config.maxPendingMessages(), config.maxRetries()));
            } finally {
                lock.unlock();
            }
            LOG.log(Level.INFO, "Partitions assigned: group={0}, partitions={1}", group, new TreeSet<>(
                    partitions.stream().map(TopicPartition::toString).toList()));
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            awaitAcks(partitions);
            commitFinal(partitions);
            drop(partitions);
            LOG.log(Level.INFO, "Partitions revoked: group={0}, partitions={1}", group, partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            drop(partitions);
            LOG.log(Level.WARNING, "Partitions lost: group={0}, partitions={1}", group, partitions);
        }

        /**
         * Before a partition moves to another member, waits for the acks of what was offered from it, up to the
         * latest offer deadline (at most {@code ack_timeout}, §4.6); not while shutting down.
         */
        private void awaitAcks(Collection<TopicPartition> partitions) {
            lock.lock();
            try {
                List<PartitionState> revoking = new ArrayList<>();
                for (TopicPartition tp : partitions) {
                    PartitionState p = assigned.get(tp);
                    if (p != null) {
                        p.startRevoking();
                        revoking.add(p);
                    }
                }
                while (!shuttingDown) {
                    Instant now = clock.instant();
                    Duration wait = Duration.ZERO;
                    for (PartitionState p : revoking) {
                        Duration w = p.waitForAcks(now);
                        if (w.compareTo(wait) > 0) {
                            wait = w;
                        }
                    }
                    if (wait.isZero() || wait.isNegative()) {
                        return;
                    }
                    acked.await(wait.toNanos(), TimeUnit.NANOSECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                lock.unlock();
            }
        }

        private void drop(Collection<TopicPartition> partitions) {
            lock.lock();
            try {
                for (TopicPartition tp : partitions) {
                    PartitionState p = assigned.remove(tp);
                    TopicState t = topics.get(tp.topic());
                    if (p != null && t != null) {
                        t.remove(p);
                    }
                }
            } finally {
                lock.unlock();
            }
            paused.removeAll(partitions);
        }
    }
}
