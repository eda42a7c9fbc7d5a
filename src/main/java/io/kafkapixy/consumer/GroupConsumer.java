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
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import io.kafkapixy.admin.Committed;
import io.kafkapixy.admin.OffsetStore;
import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicAuthorizationException;

/**
 * This instance's member of one consumer group (reference §4, design.md §3): one {@link Consumer} created and
 * owned by one thread, whose subscription is the set of topics with live requests here.
 *
 * <p>Request threads park in {@link #consume} and are served from fetched records under {@link #lock}; the owning
 * thread polls, follows rebalances (initial offsets per §4.8, a final commit when a partition goes), commits every
 * {@code offsets_commit_interval}, pauses partitions that are full or over {@code max_pending_messages}, drops
 * offers past {@code max_retries}, and expires idle topics (§4.7). When the last topic expires, or on
 * {@link #shutdown()}, it commits, leaves the group and is done; later requests get a new member from
 * {@link Consumers}. Acks are taken until the partitions are committed and gone, also while closing.
 */
final class GroupConsumer {

    private static final System.Logger LOG = System.getLogger(GroupConsumer.class.getName());
    /** How often the owning thread looks at subscriptions, retries, pauses and commits when no records arrive. */
    static final Duration POLL_INTERVAL = Duration.ofMillis(100);
    /** Records buffered per partition before fetching pauses; a bound on memory, whatever the request limit. */
    static final int MAX_FETCH_BUFFER = 256;
    /**
     * How long a partition that moves to another member waits for the acks of what it offered. The original waits
     * up to {@code ack_timeout} (§4.6); here the wait blocks the member's poll loop and the group's rebalance, so it
     * is short: later acks are lost and those messages are delivered again by the new owner (at least once).
     */
    static final Duration REVOKE_ACK_WAIT = Duration.ofSeconds(5);
    private static final Duration KAFKA_CALL_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration LEAVE_COMMIT_DEADLINE = Duration.ofSeconds(30);
    private static final Duration HEAD_LOOKUP_TIMEOUT = Duration.ofSeconds(5);
    /**
     * How often the poll loop looks at every held partition (fetch positions past trailing gaps, the gauges) rather
     * than only at those that just had records: with many idle topics in a group, a full look per poll made the busy
     * topic's requests wait for the group's lock.
     */
    static final Duration SCAN_INTERVAL = Duration.ofSeconds(1);

    private final String group;
    private final ConsumerConfig config;
    private final Clock clock;
    private final OffsetStore committedOffsets;
    private final Supplier<Consumer<byte[], byte[]>> kafkaFactory;
    private final Membership.Factory memberships;
    private final Runnable onDone;
    private final ConsumerMetrics metrics;
    private final Thread thread;
    private final int fetchBuffer;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition acked = lock.newCondition();
    // guarded by lock
    private final Map<String, TopicState> topics = new HashMap<>();
    private final Map<TopicPartition, PartitionState> assigned = new HashMap<>();
    private boolean started;
    private boolean closed;
    private boolean shuttingDown;

    // owning thread only
    private Consumer<byte[], byte[]> kafka;
    private Membership membership;
    private final Set<TopicPartition> paused = new HashSet<>();
    private final Set<TopicPartition> uninitialized = new HashSet<>();
    /** Newest offsets seen when a topic was first asked for: where a group with no commit starts (§4.8). */
    private final Map<TopicPartition, Long> heads = new HashMap<>();
    private Instant nextCommit;
    /** When every held partition is looked at again, not only those that had records (see {@link #SCAN_INTERVAL}). */
    private Instant nextScan;

    GroupConsumer(String group, ConsumerConfig config, Clock clock, OffsetStore committedOffsets,
                  Supplier<Consumer<byte[], byte[]>> kafkaFactory, Membership.Factory memberships,
                  ConsumerMetrics metrics, Runnable onDone) {
        this.memberships = memberships;
        this.metrics = metrics;
        this.group = group;
        this.config = config;
        this.clock = clock;
        this.committedOffsets = committedOffsets;
        this.kafkaFactory = kafkaFactory;
        this.onDone = onDone;
        this.fetchBuffer = Math.min(config.channelBufferSize(), MAX_FETCH_BUFFER);
        this.nextCommit = clock.instant().plus(config.offsetsCommitInterval());
        this.nextScan = clock.instant();
        this.thread = Thread.ofPlatform().name("group-" + group).daemon().unstarted(this::run);
    }

    /**
     * Parks a request for a message of {@code topic} until {@code arrival} + {@code long_polling_timeout}. Returns
     * null when this member is leaving the group (the caller gets a new member).
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
            t = topics.computeIfAbsent(topic, name -> new TopicState(name, arrival, metrics.topic(group, name)));
            try {
                r = t.park(arrival, deadline, config.channelBufferSize());
            } catch (PixyException e) {
                t.metrics.request(ConsumerMetrics.Outcome.TOO_MANY_REQUESTS);
                throw e;
            }
            t.dispatch(clock.instant(), config.maxPendingMessages(), config.maxRetries());
            if (!started) {
                started = true;
                thread.start();
            }
        } finally {
            lock.unlock();
        }
        try {
            ConsumedMessage m = await(t, r);
            t.metrics.request(ConsumerMetrics.Outcome.MESSAGE);
            return m;
        } catch (PixyException e) {
            t.metrics.request(e.kind() == ErrorKind.LONG_POLL_TIMEOUT ? ConsumerMetrics.Outcome.LONG_POLL_TIMEOUT
                    : ConsumerMetrics.Outcome.ERROR);
            throw e;
        }
    }

    private ConsumedMessage await(TopicState t, WaitingRequest r) {
        long ttl = Duration.between(clock.instant(), r.deadline).toNanos();
        try {
            return r.result.get(Math.max(ttl, 0), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            giveUp(t, r, PixyException.longPollTimeout());
            return result(r);
        } catch (InterruptedException e) {
            // The server is stopping this request: take it out of the queue so no message is offered to it.
            giveUp(t, r, PixyException.shuttingDown());
            Thread.currentThread().interrupt();
            return result(r);
        } catch (ExecutionException e) {
            throw unwrap(e.getCause());
        }
    }

    /** A message handed over at the last moment is still delivered; otherwise the request leaves the queue. */
    private void giveUp(TopicState t, WaitingRequest r, PixyException answer) {
        lock.lock();
        try {
            if (!r.result.isDone() && t.unpark(r)) {
                r.result.completeExceptionally(answer);
            }
        } finally {
            lock.unlock();
        }
    }

    private static ConsumedMessage result(WaitingRequest r) {
        try {
            return r.result.join();
        } catch (CompletionException e) {
            throw unwrap(e.getCause());
        }
    }

    private static PixyException unwrap(Throwable cause) {
        return cause instanceof PixyException p ? p
                : new PixyException(ErrorKind.INTERNAL, String.valueOf(cause.getMessage()), cause);
    }

    /** Acks a message of a partition held here, also while closing; false when the partition is not held here. */
    boolean ack(String topic, int partition, long offset) {
        lock.lock();
        try {
            PartitionState p = assigned.get(new TopicPartition(topic, partition));
            if (p == null) {
                return false;
            }
            boolean changed = p.ack(offset);
            acked.signalAll();
            TopicState t = topics.get(topic);
            if (changed && t != null) {
                t.metrics.acked();
            }
            if (t != null && t.hasWaiting()) {
                t.dispatch(clock.instant(), config.maxPendingMessages(), config.maxRetries());
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Answers parked requests {@code service is shutting down}; the owning thread then commits and leaves. */
    void shutdown() {
        lock.lock();
        try {
            closed = true;
            shuttingDown = true;
            topics.values().forEach(t -> t.failAll(PixyException.shuttingDown()));
            acked.signalAll();
            if (!started) {
                started = true;
                onDone.run();
            }
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

    private boolean isShuttingDown() {
        lock.lock();
        try {
            return shuttingDown;
        } finally {
            lock.unlock();
        }
    }

    /** True once this member takes no more requests (it is leaving the group or has left). */
    boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    /** Waits for the owning thread to finish leaving the group; true when it did (or never started). */
    boolean awaitDone(Duration timeout) throws InterruptedException {
        if (thread.getState() == Thread.State.NEW) {
            return true;
        }
        return thread.join(timeout);
    }

    private void run() {
        PixyException answer = PixyException.shuttingDown();
        try {
            kafka = kafkaFactory.get();
            membership = memberships.create(group, kafka, handover);
            while (true) {
                Set<String> wanted = wantedTopics();
                if (wanted.isEmpty()) {
                    break;
                }
                try {
                    pollOnce(wanted);
                } catch (TopicAuthorizationException e) {
                    refuseTopics(e.unauthorizedTopics(), e.getMessage());
                } catch (RetriableException | org.apache.kafka.common.errors.InterruptException e) {
                    LOG.log(Level.WARNING, "Group {0}: {1}; retrying in {2}", group, e.getMessage(),
                            config.retryBackoff());
                    sleep(config.retryBackoff());
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "Group consumer failed: group=" + group, e);
            answer = new PixyException(ErrorKind.INTERNAL, "consumer of group " + group + " failed: "
                                                            + e.getMessage());
        }
        leave(answer);
    }

    private void pollOnce(Set<String> wanted) {
        membership.follow(wanted);
        if (!uninitialized.isEmpty()) {
            initialize(new ArrayList<>(uninitialized));
        }
        ConsumerRecords<byte[], byte[]> records;
        if (kafka.subscription().isEmpty() && kafka.assignment().isEmpty()) {
            // nothing to poll yet (a ZooKeeper member waiting for its claims): wait as long as a poll would
            sleep(POLL_INTERVAL);
            records = ConsumerRecords.empty();
        } else {
            records = kafka.poll(POLL_INTERVAL);
        }
        Instant now = clock.instant();
        Set<TopicPartition> toPause = new HashSet<>(uninitialized);
        boolean scan = !now.isBefore(nextScan);
        if (scan) {
            nextScan = now.plus(SCAN_INTERVAL);
        }
        Map<TopicPartition, Long> positions = fetchPositions(scan ? kafka.assignment() : records.partitions());
        lock.lock();
        try {
            for (ConsumerRecord<byte[], byte[]> record : records) {
                PartitionState p = assigned.get(new TopicPartition(record.topic(), record.partition()));
                if (p != null) {
                    p.addFetched(record);
                }
            }
            positions.forEach((tp, position) -> {
                PartitionState p = assigned.get(tp);
                if (p != null) {
                    p.fetchedUpTo(position);
                }
            });
            for (PartitionState p : assigned.values()) {
                p.takeDueRetry(now, config.maxRetries());
            }
            for (TopicState t : topics.values()) {
                t.dispatch(now, config.maxPendingMessages(), config.maxRetries());
                if (t.shouldExpire(now, config.subscriptionTimeout(), config.ackTimeout())) {
                    LOG.log(Level.INFO, "Topic subscription expired: group={0}, topic={1}", group, t.topic);
                    t.expire();
                }
            }
            for (PartitionState p : assigned.values()) {
                if (p.shouldPauseFetching(fetchBuffer, config.maxPendingMessages())) {
                    toPause.add(p.tp);
                }
            }
            if (scan) {
                reportState(positions);
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

    /** Publishes each topic's gauges; under the lock, on the owning thread. */
    private void reportState(Map<TopicPartition, Long> positions) {
        Map<String, Long> lag = new HashMap<>();
        assigned.forEach((tp, p) -> {
            Long position = positions.get(tp);
            if (position == null) {
                return;
            }
            OptionalLong behindFetch;
            try {
                behindFetch = kafka.currentLag(tp);
            } catch (RuntimeException notKnown) {
                return;
            }
            if (behindFetch.isPresent()) {
                long end = position + behindFetch.getAsLong();
                lag.merge(tp.topic(), Math.max(0, end - p.committableOffset()), Long::sum);
            }
        });
        for (TopicState t : topics.values()) {
            t.metrics.state(t.waitingCount(), t.unackedCount(), lag.getOrDefault(t.topic, 0L));
        }
    }

    /** Fetch positions of these partitions where initialized; known locally after the seek at assignment. */
    private Map<TopicPartition, Long> fetchPositions(Collection<TopicPartition> partitions) {
        Map<TopicPartition, Long> positions = new HashMap<>();
        for (TopicPartition tp : partitions) {
            if (!uninitialized.contains(tp)) {
                try {
                    positions.put(tp, kafka.position(tp, Duration.ZERO));
                } catch (RuntimeException unknownYet) {
                    // no position without a round trip: look again next time
                }
            }
        }
        return positions;
    }

    /** Topics with live requests; when none is left the member is closed to new requests, under the lock. */
    private Set<String> wantedTopics() {
        lock.lock();
        try {
            if (shuttingDown) {
                return Set.of();
            }
            Set<String> wanted = new TreeSet<>();
            topics.values().removeIf(t -> {
                boolean gone = t.expired() && !t.hasPartitions() && !t.hasWaiting();
                if (gone) {
                    t.metrics.remove();
                }
                return gone;
            });
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

    /** A topic this instance may not read: its requests fail and it leaves the subscription until asked again. */
    private void refuseTopics(Set<String> unauthorized, String reason) {
        LOG.log(Level.WARNING, "Group {0}: {1}", group, reason);
        lock.lock();
        try {
            for (String topic : unauthorized) {
                TopicState t = topics.get(topic);
                if (t != null) {
                    t.failAll(new PixyException(ErrorKind.INTERNAL, reason));
                    t.expire();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Remembers the newest offsets of a topic when it is first asked for (where a group with no commit starts). */
    private void rememberHead(String topic) {
        try {
            List<PartitionInfo> partitions = kafka.partitionsFor(topic, HEAD_LOOKUP_TIMEOUT);
            if (partitions == null || partitions.isEmpty()) {
                return;
            }
            List<TopicPartition> tps = partitions.stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            heads.putAll(kafka.endOffsets(tps, HEAD_LOOKUP_TIMEOUT));
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "No head offsets for {0}: {1}", topic, e.getMessage());
        }
    }

    private void updatePaused(Set<TopicPartition> toPause) {
        Set<TopicPartition> assignment = kafka.assignment();
        Set<TopicPartition> resume = new HashSet<>(paused);
        resume.removeAll(toPause);
        resume.retainAll(assignment);
        Set<TopicPartition> pause = new HashSet<>(toPause);
        pause.removeAll(paused);
        pause.retainAll(assignment);
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
     * Leaves the group: commits every held position (letting a rebalance in progress finish first, since a member
     * in a rebalance cannot commit and would lose its partitions uncommitted), unsubscribes, closes the consumer.
     * Requests still parked are answered: 503 when shutting down, else {@code answerParked}.
     */
    private void leave(PixyException answerParked) {
        lock.lock();
        try {
            closed = true;
        } finally {
            lock.unlock();
        }
        if (kafka != null) {
            if (isShuttingDown()) {
                handover.awaitAcks(assignedPartitions(), true);
            }
            commitBeforeLeaving();
            if (membership != null) {
                try {
                    membership.leave();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "Failed to leave the membership of group " + group, e);
                }
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
        }
        lock.lock();
        try {
            PixyException answer = shuttingDown ? PixyException.shuttingDown() : answerParked;
            topics.values().forEach(t -> {
                t.failAll(answer);
                t.metrics.remove();
            });
            assigned.clear();
        } finally {
            lock.unlock();
        }
        LOG.log(Level.INFO, "Group {0} left", group);
        onDone.run();
    }

    private void commitBeforeLeaving() {
        Instant deadline = clock.instant().plus(LEAVE_COMMIT_DEADLINE);
        while (true) {
            Map<TopicPartition, OffsetAndMetadata> offsets = positions(assignedPartitions());
            if (offsets.isEmpty()) {
                return;
            }
            try {
                kafka.commitSync(offsets, KAFKA_CALL_TIMEOUT);
                return;
            } catch (RebalanceInProgressException e) {
                if (clock.instant().isAfter(deadline)) {
                    LOG.log(Level.ERROR, "Failed to commit offset before leaving: group={0}, offsets={1}", group,
                            offsets);
                    return;
                }
                try {
                    kafka.poll(POLL_INTERVAL);
                } catch (RuntimeException pollError) {
                    LOG.log(Level.WARNING, "Group {0}: {1}", group, pollError.getMessage());
                }
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "Failed to commit offset before leaving: group={0}, offsets={1}, error={2}",
                        group, offsets, e.getMessage());
                return;
            }
        }
    }

    private List<TopicPartition> assignedPartitions() {
        lock.lock();
        try {
            return new ArrayList<>(assigned.keySet());
        } finally {
            lock.unlock();
        }
    }

    private Map<TopicPartition, OffsetAndMetadata> positions(Collection<TopicPartition> partitions) {
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
        return offsets;
    }

    /**
     * Sets up newly assigned partitions (§4.8). A partition whose offsets cannot be read yet stays paused and is
     * retried on the next poll.
     */
    private void initialize(Collection<TopicPartition> partitions) {
        Set<TopicPartition> set = new HashSet<>(partitions);
        set.retainAll(kafka.assignment());
        uninitialized.removeIf(tp -> !kafka.assignment().contains(tp));
        if (set.isEmpty()) {
            return;
        }
        Map<TopicPartition, Committed> committed;
        Map<TopicPartition, Long> begin;
        Map<TopicPartition, Long> end;
        try {
            committed = committedOffsets.fetch(group, set);
            begin = kafka.beginningOffsets(set, KAFKA_CALL_TIMEOUT);
            end = kafka.endOffsets(set, KAFKA_CALL_TIMEOUT);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Cannot read offsets of {0} for group {1} yet: {2}", set, group, e.getMessage());
            uninitialized.addAll(set);
            kafka.pause(set);
            paused.addAll(set);
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> adjusted = new HashMap<>();
        Map<TopicPartition, PartitionState> states = new HashMap<>();
        for (TopicPartition tp : set) {
            Committed c = committed.getOrDefault(tp, Committed.NONE);
            long newest = end.get(tp);
            Long head = heads.remove(tp);
            long start = c.offset() == -1 && head != null && head >= begin.get(tp) && head < newest ? head : newest;
            InitialOffset initial = InitialOffset.of(c, begin.get(tp), start, config.ackTimeout());
            if (initial.tracker().badMetadata()) {
                LOG.log(Level.WARNING, "Bad sparse acks: group={0}, partition={1}, metadata={2}", group, tp,
                        c.metadata());
            }
            kafka.seek(tp, initial.fetchFrom());
            PartitionState p = new PartitionState(tp, initial.tracker(),
                    c.offset() < 0 ? null : new OffsetAndMetadata(c.offset(), c.metadata()), initial.fetchFrom());
            if (initial.commit().isPresent()) {
                LOG.log(Level.INFO, "Adjusted offset: group={0}, partition={1}, new={2}", group, tp,
                        initial.commit().get().offset());
                adjusted.put(tp, p.position());
            }
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
        uninitialized.removeAll(set);
        if (paused.removeAll(set)) {
            kafka.resume(set);
        }
        lock.lock();
        try {
            states.forEach((tp, p) -> {
                assigned.put(tp, p);
                topics.computeIfAbsent(tp.topic(), name -> {
                    TopicState t = new TopicState(name, clock.instant(), metrics.topic(group, name));
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
                set.stream().map(TopicPartition::toString).toList()));
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private final Handover handover = new Handover();

    /**
     * How partitions come and go, whichever {@link Membership} decides it; on the owning thread (for Kafka's
     * protocol, from inside {@code poll}).
     */
    private final class Handover implements PartitionLifecycle {

        @Override
        public void topicWanted(String topic) {
            rememberHead(topic);
        }

        @Override
        public void assigned(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty()) {
                metrics.rebalanced(group);
                initialize(partitions);
            }
        }

        /** Waits briefly for outstanding acks, then commits the final positions and lets the partitions go. */
        @Override
        public void revoked(Collection<TopicPartition> partitions) {
            uninitialized.removeAll(partitions);
            if (partitions.isEmpty()) {
                return;
            }
            metrics.rebalanced(group);
            awaitAcks(partitions, false);
            Map<TopicPartition, OffsetAndMetadata> offsets = takeFinal(partitions);
            if (!offsets.isEmpty()) {
                try {
                    kafka.commitSync(offsets, KAFKA_CALL_TIMEOUT);
                } catch (RuntimeException e) {
                    LOG.log(Level.ERROR, "Failed to commit offset: group={0}, offsets={1}, error={2}", group,
                            offsets, e.getMessage());
                }
            }
            LOG.log(Level.INFO, "Partitions revoked: group={0}, partitions={1}", group, partitions);
        }

        @Override
        public void lost(Collection<TopicPartition> partitions) {
            uninitialized.removeAll(partitions);
            if (!partitions.isEmpty()) {
                metrics.rebalanced(group);
            }
            Map<TopicPartition, OffsetAndMetadata> uncommitted = takeFinal(partitions);
            LOG.log(Level.WARNING, "Partitions lost: group={0}, uncommitted={1}", group, uncommitted);
        }

        /**
         * Waits until the partitions' offered messages are acked or their acks are overdue, taking acks meanwhile. A
         * partition moving to another member waits at most {@link #REVOKE_ACK_WAIT} (also when shutdown begins
         * meanwhile), and not at all when shutdown began first (the drain already waited); the drain itself
         * ({@code draining}) waits at most {@code consumer.shutdown_timeout}.
         */
        private void awaitAcks(Collection<TopicPartition> partitions, boolean draining) {
            Instant limit = clock.instant().plus(draining ? config.shutdownTimeout() : REVOKE_ACK_WAIT);
            lock.lock();
            try {
                if (!draining && shuttingDown) {
                    return;
                }
                List<PartitionState> revoking = new ArrayList<>();
                for (TopicPartition tp : partitions) {
                    PartitionState p = assigned.get(tp);
                    if (p != null) {
                        p.startRevoking();
                        revoking.add(p);
                    }
                }
                while (true) {
                    Instant now = clock.instant();
                    Duration wait = Duration.ZERO;
                    for (PartitionState p : revoking) {
                        Duration w = p.waitForAcks(now);
                        if (w.compareTo(wait) > 0) {
                            wait = w;
                        }
                    }
                    Duration left = Duration.between(now, limit);
                    if (left.compareTo(wait) < 0) {
                        wait = left;
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

        /** Removes the partitions and returns their positions, atomically, so no ack lands in between. */
        private Map<TopicPartition, OffsetAndMetadata> takeFinal(Collection<TopicPartition> partitions) {
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            lock.lock();
            try {
                for (TopicPartition tp : partitions) {
                    PartitionState p = assigned.remove(tp);
                    if (p == null) {
                        continue;
                    }
                    offsets.put(tp, p.position());
                    TopicState t = topics.get(tp.topic());
                    if (t != null) {
                        t.remove(p);
                    }
                }
            } finally {
                lock.unlock();
            }
            paused.removeAll(partitions);
            return offsets;
        }
    }
}
