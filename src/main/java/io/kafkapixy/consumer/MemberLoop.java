package io.kafkapixy.consumer;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;

import io.kafkapixy.offset.store.OffsetStore;
import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicAuthorizationException;

/**
 * The owning thread of a group member's {@link Consumer}: it creates the consumer, follows the topics wanted on this
 * instance through the {@link Membership}, polls and hands the records to the {@link GroupState}, pauses partitions
 * that are full or over {@code max_pending_messages}, commits every {@code offsets_commit_interval}, and when no topic
 * is wanted any more (or on shutdown) commits, leaves the group and closes the consumer.
 *
 * <p>{@link #run()} is the whole life; tests drive it one {@link #step()} at a time on their own thread.
 */
final class MemberLoop {

    private static final System.Logger LOG = System.getLogger(MemberLoop.class.getName());
    /** How often the loop looks at subscriptions, retries, pauses and commits when no records arrive. */
    static final Duration POLL_INTERVAL = Duration.ofMillis(100);
    /**
     * How long a poll waits when the member has nothing in hand: no records came, nothing is paused, set up late or
     * out with a client. Records still end the wait at once; what the loop also looks at (a topic asked for anew, a
     * shutdown, subscription expiry) waits at most this long. An instance may hold hundreds of idle groups: at
     * {@link #POLL_INTERVAL} their loops took twice the CPU.
     */
    static final Duration IDLE_POLL_INTERVAL = Duration.ofMillis(500);
    /**
     * How often every held partition is looked at (fetch positions past trailing gaps, the gauges) rather than only
     * those that just had records: with many idle topics in a group, a full look per poll made the busy topic's
     * requests wait for the group's lock.
     */
    static final Duration SCAN_INTERVAL = Duration.ofSeconds(1);
    private static final Duration LEAVE_COMMIT_DEADLINE = Duration.ofSeconds(30);

    private final String group;
    private final ConsumerConfig config;
    private final Clock clock;
    private final GroupState state;
    private final OffsetStore committedOffsets;
    private final Supplier<Consumer<byte[], byte[]>> kafkaFactory;
    private final Membership.Factory memberships;
    private final ConsumerMetrics metrics;
    private final Duration revokeWaitLimit;
    private final StartGate starts;

    private Consumer<byte[], byte[]> kafka;
    private Membership membership;
    private Handover handover;
    private Instant nextCommit;
    private Instant nextScan;
    /** Whether the last turn found the member with nothing in hand (see {@link #IDLE_POLL_INTERVAL}). */
    private boolean idle;
    private Set<String> lastWanted = Set.of();

    MemberLoop(GroupState state, ConsumerConfig config, Clock clock, OffsetStore committedOffsets,
               Supplier<Consumer<byte[], byte[]>> kafkaFactory, Membership.Factory memberships,
               ConsumerMetrics metrics, Duration revokeWaitLimit, StartGate starts) {
        this.group = state.group();
        this.state = state;
        this.config = config;
        this.clock = clock;
        this.committedOffsets = committedOffsets;
        this.kafkaFactory = kafkaFactory;
        this.memberships = memberships;
        this.metrics = metrics;
        this.revokeWaitLimit = revokeWaitLimit;
        this.starts = starts;
    }

    /** The member's whole life: open, step until no topic is wanted or shutdown, leave. */
    void run() {
        PixyException answer = PixyException.shuttingDown();
        try {
            open();
            while (step()) {
                // each step polls once
            }
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "Group consumer failed: group=" + group, e);
            answer = new PixyException(ErrorKind.INTERNAL, "consumer of group " + group + " failed: "
                                                            + e.getMessage());
        }
        leave(answer);
    }

    /** Creates the consumer and the membership. */
    void open() {
        kafka = starts.through(kafkaFactory);
        handover = new Handover(group, config, clock, kafka, state, committedOffsets, metrics, revokeWaitLimit,
                starts);
        membership = memberships.create(group, kafka, handover);
        Instant now = clock.instant();
        nextCommit = now.plus(config.offsetsCommitInterval());
        nextScan = now;
    }

    /**
     * One turn of the loop: follow the wanted topics, poll once, hand over the records, pause and resume, commit when
     * due. Returns false, having done nothing, when no topic is wanted any more (the member should leave).
     */
    boolean step() {
        Set<String> wanted = state.wantedTopics();
        if (wanted.isEmpty()) {
            return false;
        }
        try {
            pollOnce(wanted);
        } catch (TopicAuthorizationException e) {
            LOG.log(Level.WARNING, "Group {0}: {1}", group, e.getMessage());
            state.refuseTopics(e.unauthorizedTopics(), e.getMessage());
        } catch (RetriableException | org.apache.kafka.common.errors.InterruptException e) {
            LOG.log(Level.WARNING, "Group {0}: {1}; retrying in {2}", group, e.getMessage(), config.retryBackoff());
            sleep(config.retryBackoff());
        }
        return true;
    }

    private void pollOnce(Set<String> wanted) {
        membership.follow(wanted);
        handover.retryPending();
        ConsumerRecords<byte[], byte[]> records;
        if (kafka.subscription().isEmpty() && kafka.assignment().isEmpty()) {
            // nothing to poll yet (a ZooKeeper member waiting for its claims): wait as long as a poll would
            sleep(POLL_INTERVAL);
            records = ConsumerRecords.empty();
        } else {
            records = poll(idle && wanted.equals(lastWanted) ? IDLE_POLL_INTERVAL : POLL_INTERVAL);
        }
        lastWanted = wanted;
        Instant now = clock.instant();
        boolean scan = !now.isBefore(nextScan);
        if (scan) {
            nextScan = now.plus(SCAN_INTERVAL);
        }
        Map<TopicPartition, Long> positions = fetchPositions(scan ? kafka.assignment() : records.partitions());
        Set<TopicPartition> toPause = state.fetches.absorb(records, positions, now);
        if (scan) {
            state.fetches.reportState(tp -> endOffset(tp, positions.get(tp)), partitionCounts(wanted));
        }
        toPause.addAll(handover.pending());
        updatePaused(toPause);
        idle = records.isEmpty() && toPause.isEmpty() && state.commits.nothingOut();
        // A shut gate means the partitions may be another member's by now (ServingGate): what this member acked
        // before the doubt arose is not written over that member's progress.
        if (!now.isBefore(nextCommit) && state.gateOpen()) {
            commitChanged();
            nextCommit = now.plus(config.offsetsCommitInterval());
        }
    }

    /**
     * Polls Kafka. With every held partition paused nothing can arrive, so it only lets the consumer run (rebalances,
     * commit callbacks) and then waits for a buffer to need records. With only some paused a shorter poll would not
     * help: a resumed partition is fetched only once the fetch in flight to its broker returns, which for idle
     * partitions the broker holds for {@code fetch_max_wait}.
     */
    private ConsumerRecords<byte[], byte[]> poll(Duration wait) {
        Set<TopicPartition> assignment = kafka.assignment();
        Set<TopicPartition> paused = kafka.paused();
        if (!assignment.isEmpty() && paused.containsAll(assignment)) {
            ConsumerRecords<byte[], byte[]> records = kafka.poll(Duration.ZERO);
            if (records.isEmpty()) {
                state.fetches.awaitRefill(POLL_INTERVAL);
            }
            return records;
        }
        return kafka.poll(wait);
    }

    /** The wanted topics' numbers of partitions as the consumer's metadata has them now (no round trip). */
    private Map<String, Integer> partitionCounts(Set<String> topics) {
        Map<String, Integer> counts = new HashMap<>();
        for (String topic : topics) {
            try {
                List<PartitionInfo> partitions = kafka.partitionsFor(topic, Duration.ZERO);
                if (partitions != null && !partitions.isEmpty()) {
                    counts.put(topic, partitions.size());
                }
            } catch (RuntimeException notKnownYet) {
                // no metadata for it yet: looked at again at the next scan
            }
        }
        return counts;
    }

    /** The end of a partition as the consumer knows it from its last fetch, or null. */
    private Long endOffset(TopicPartition tp, Long position) {
        if (position == null) {
            return null;
        }
        try {
            OptionalLong behind = kafka.currentLag(tp);
            return behind.isPresent() ? position + behind.getAsLong() : null;
        } catch (RuntimeException notKnown) {
            return null;
        }
    }

    /** Fetch positions of these partitions where set up; known locally after the seek at assignment. */
    private Map<TopicPartition, Long> fetchPositions(Collection<TopicPartition> partitions) {
        Map<TopicPartition, Long> positions = new HashMap<>();
        Set<TopicPartition> pending = handover.pending();
        for (TopicPartition tp : partitions) {
            if (!pending.contains(tp)) {
                try {
                    positions.put(tp, kafka.position(tp, Duration.ZERO));
                } catch (RuntimeException unknownYet) {
                    // no position without a round trip: look again next time
                }
            }
        }
        return positions;
    }

    private void updatePaused(Set<TopicPartition> toPause) {
        Set<TopicPartition> assignment = kafka.assignment();
        Set<TopicPartition> paused = kafka.paused();
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
    }

    private void commitChanged() {
        Map<TopicPartition, OffsetAndMetadata> offsets = state.commits.changedOffsets();
        if (offsets.isEmpty()) {
            return;
        }
        kafka.commitAsync(offsets, (committed, error) -> {
            if (error != null) {
                LOG.log(Level.WARNING, "Failed to commit offset: group={0}, error={1}", group, error.getMessage());
                state.commits.commitFailed(offsets.keySet());
            }
        });
    }

    /**
     * Leaves the group: on shutdown waits for the acks of what was offered (until {@code consumer.shutdown_timeout}),
     * commits every held position (letting a rebalance in progress finish first, since a member in a rebalance cannot
     * commit and would lose its partitions uncommitted), leaves the membership, closes the consumer. Requests still
     * parked are answered: 503 when shutting down, else {@code answerParked}.
     */
    void leave(PixyException answerParked) {
        state.stopTakingRequests();
        if (kafka != null) {
            if (state.isShuttingDown()) {
                state.commits.awaitAcks(state.commits.assignedPartitions(), Instant.MAX);
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
                kafka.close(Handover.KAFKA_CALL_TIMEOUT);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Failed to close consumer of group " + group, e);
            }
        }
        state.close(answerParked);
        LOG.log(Level.INFO, "Group {0} left", group);
    }

    private void commitBeforeLeaving() {
        if (!state.gateOpen()) {
            // Stood still (or lost ZooKeeper) and not confirmed since: the partitions may be another member's, whose
            // progress this commit would overwrite. The acks since the last commit are offered again instead.
            LOG.log(Level.WARNING, "Group {0}: leaving without the final commit, its partitions may have moved "
                                   + "while this process stood still or ZooKeeper was away", group);
            return;
        }
        Instant deadline = clock.instant().plus(LEAVE_COMMIT_DEADLINE);
        while (true) {
            Map<TopicPartition, OffsetAndMetadata> offsets = state.commits.positions();
            if (offsets.isEmpty()) {
                return;
            }
            try {
                kafka.commitSync(offsets, Handover.KAFKA_CALL_TIMEOUT);
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

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
