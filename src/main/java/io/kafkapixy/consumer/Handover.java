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

import io.kafkapixy.offset.store.Committed;
import io.kafkapixy.offset.store.OffsetStore;
import io.kafkapixy.config.ConsumerConfig;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * How partitions come to this member and leave it, whichever {@link Membership} decides it.
 * Called on the member's owning thread only (for Kafka's protocol, from inside {@code poll}).
 *
 * <p>A partition that comes is set up from its committed offset and sparse acks; one that cannot be read yet stays
 * paused and is retried every poll ({@link #retryPending()}). A partition that goes stops offering, waits for the acks
 * of what it offered as the original does (up to {@code ack_timeout}, but never past {@code revokeWaitLimit}, the
 * time the membership allows a member to keep a rebalance waiting), commits its final position and is let go.
 */
final class Handover implements PartitionLifecycle {

    private static final System.Logger LOG = System.getLogger(Handover.class.getName());
    static final Duration KAFKA_CALL_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration HEAD_LOOKUP_TIMEOUT = Duration.ofSeconds(5);

    private final String group;
    private final ConsumerConfig config;
    private final Clock clock;
    private final Consumer<byte[], byte[]> kafka;
    private final GroupState state;
    private final OffsetStore committedOffsets;
    private final ConsumerMetrics metrics;
    private final Duration revokeWaitLimit;
    private final StartGate starts;
    /** Assigned partitions whose offsets could not be read yet: kept paused, retried every poll. */
    private final Set<TopicPartition> pending = new HashSet<>();
    /** Newest offsets seen when a topic was first asked for: where a group with no commit starts. */
    private final Map<TopicPartition, Long> heads = new HashMap<>();

    /**
     * @param revokeWaitLimit the longest a revoked partition waits for acks; null for no limit but the acks' own
     *                        deadlines (the original's behaviour)
     * @param starts          where looking up a topic's head and setting up assigned partitions wait their turn
     */
    Handover(String group, ConsumerConfig config, Clock clock, Consumer<byte[], byte[]> kafka, GroupState state,
             OffsetStore committedOffsets, ConsumerMetrics metrics, Duration revokeWaitLimit, StartGate starts) {
        this.group = group;
        this.config = config;
        this.clock = clock;
        this.kafka = kafka;
        this.state = state;
        this.committedOffsets = committedOffsets;
        this.metrics = metrics;
        this.revokeWaitLimit = revokeWaitLimit;
        this.starts = starts;
    }

    @Override
    public void topicWanted(String topic) {
        starts.through(() -> lookUpHead(topic));
    }

    private void lookUpHead(String topic) {
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

    @Override
    public void assigned(Collection<TopicPartition> partitions) {
        if (!partitions.isEmpty()) {
            metrics.rebalanced(group);
            starts.through(() -> initialize(partitions));
        }
    }

    /** Waits for outstanding acks, then commits the final positions and lets the partitions go. */
    @Override
    public void revoked(Collection<TopicPartition> partitions) {
        pending.removeAll(partitions);
        if (partitions.isEmpty()) {
            return;
        }
        metrics.rebalanced(group);
        Instant now = clock.instant();
        state.commits.awaitAcks(partitions, revokeWaitLimit == null ? Instant.MAX : now.plus(revokeWaitLimit));
        Map<TopicPartition, OffsetAndMetadata> offsets = state.commits.takeFinal(partitions);
        if (!offsets.isEmpty()) {
            try {
                kafka.commitSync(offsets, KAFKA_CALL_TIMEOUT);
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "Failed to commit offset: group={0}, offsets={1}, error={2}", group, offsets,
                        e.getMessage());
            }
        }
        LOG.log(Level.INFO, "Partitions revoked: group={0}, partitions={1}", group, partitions);
    }

    @Override
    public void lost(Collection<TopicPartition> partitions) {
        pending.removeAll(partitions);
        if (!partitions.isEmpty()) {
            metrics.rebalanced(group);
        }
        Map<TopicPartition, OffsetAndMetadata> uncommitted = state.commits.takeFinal(partitions);
        LOG.log(Level.WARNING, "Partitions lost: group={0}, uncommitted={1}", group, uncommitted);
    }

    @Override
    public void guardWith(ServingGate gate) {
        state.guardWith(gate);
    }

    @Override
    public void gateOpened() {
        state.gateOpened();
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> currentOffsets() {
        return state.commits.currentOffsets();
    }

    /** Partitions assigned but not set up yet; their fetching stays paused. */
    Set<TopicPartition> pending() {
        return pending;
    }

    /** Tries again to set up the partitions whose offsets could not be read before. */
    void retryPending() {
        if (!pending.isEmpty()) {
            starts.through(() -> initialize(new ArrayList<>(pending)));
        }
    }

    /**
     * Sets up newly assigned partitions: fetching starts at the committed offset, or where the topic's head was when it
     * was first asked for (a group with no commit), adjusted into the log's range and committed if adjusted.
     */
    private void initialize(Collection<TopicPartition> partitions) {
        Set<TopicPartition> assignment = kafka.assignment();
        pending.retainAll(assignment);
        Set<TopicPartition> set = new HashSet<>(partitions);
        set.retainAll(assignment);
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
            pending.addAll(set);
            kafka.pause(set);
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
                adjusted.keySet().forEach(tp -> states.get(tp).commitFailed());
            }
        }
        pending.removeAll(set);
        Set<TopicPartition> wasPaused = new HashSet<>(kafka.paused());
        wasPaused.retainAll(set);
        if (!wasPaused.isEmpty()) {
            kafka.resume(wasPaused);
        }
        state.fetches.add(states);
        LOG.log(Level.INFO, "Partitions assigned: group={0}, partitions={1}", group, new TreeSet<>(
                set.stream().map(TopicPartition::toString).toList()));
    }
}
