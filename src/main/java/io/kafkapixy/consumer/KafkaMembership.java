package io.kafkapixy.consumer;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.TopicPartition;

/**
 * Membership through Kafka's own group protocol ({@code membership: kafka}, the default): the consumer subscribes
 * to the wanted topics and Kafka's (cooperative) rebalances hand out the partitions.
 *
 * <p>After the whole process stood still ({@link PauseWatch}) the group may have dropped this member and handed its
 * partitions to others, which the consumer learns only from its next heartbeat's answer. Until then the member hands
 * out nothing ({@link ServingGate}): it commits its current offsets, which the coordinator takes only from a member of
 * the current generation. A refused commit means the partitions are gone; the next poll reports them lost and the
 * member joins again, and a later commit (or holding nothing) opens the gate.
 */
final class KafkaMembership implements Membership {

    private static final System.Logger LOG = System.getLogger(KafkaMembership.class.getName());
    /**
     * How long before Kafka's rebalance timeout (the member's {@code max.poll.interval.ms}) a revoked partition stops
     * waiting for acks: a member that has not polled by then is dropped from the group, and its partitions would be
     * lost uncommitted.
     */
    static final Duration REBALANCE_MARGIN = Duration.ofSeconds(15);
    private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(10);

    static final Membership.Factory FACTORY = factory(PauseWatch.process());

    /** Memberships that watch {@code pauses} (a test's manual watch, or the process's). */
    static Membership.Factory factory(PauseWatch pauses) {
        return new Membership.Factory() {
            @Override
            public Membership create(String group, Consumer<byte[], byte[]> kafka, PartitionLifecycle lifecycle) {
                return new KafkaMembership(group, kafka, lifecycle, pauses);
            }

            @Override
            public Duration revokeWaitLimit() {
                return ConsumerSettings.MAX_POLL_INTERVAL.minus(REBALANCE_MARGIN);
            }
        };
    }

    private final String group;
    private final Consumer<byte[], byte[]> kafka;
    private final PartitionLifecycle lifecycle;
    private final ConsumerRebalanceListener listener;
    private final PauseWatch pauses;
    /** The pause epoch as of the last confirmed membership; the gate is open while it is current. */
    private volatile long confirmedEpoch;
    private Set<String> subscribed = Set.of();

    KafkaMembership(String group, Consumer<byte[], byte[]> kafka, PartitionLifecycle lifecycle, PauseWatch pauses) {
        this.group = group;
        this.kafka = kafka;
        this.lifecycle = lifecycle;
        this.pauses = pauses;
        this.confirmedEpoch = pauses.epochIfAwake();
        this.listener = new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                lifecycle.assigned(partitions);
            }

            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                lifecycle.revoked(partitions);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                lifecycle.lost(partitions);
            }
        };
        lifecycle.guardWith(() -> {
            long epoch = pauses.epochIfAwake();
            return epoch >= 0 && epoch == confirmedEpoch;
        });
    }

    @Override
    public void follow(Set<String> wanted) {
        long epoch = pauses.epochIfAwake();
        if (epoch >= 0 && epoch != confirmedEpoch && stillMember()) {
            confirmedEpoch = epoch;
            lifecycle.gateOpened();
        }
        if (wanted.equals(subscribed)) {
            return;
        }
        for (String topic : wanted) {
            if (!subscribed.contains(topic)) {
                lifecycle.topicWanted(topic);
            }
        }
        LOG.log(Level.INFO, "Group {0} subscribes to {1}", group, wanted);
        kafka.subscribe(wanted, listener);
        subscribed = wanted;
    }

    /** After a pause: whether the partitions held are still this member's, by a commit the coordinator accepts. */
    private boolean stillMember() {
        Map<TopicPartition, OffsetAndMetadata> offsets = lifecycle.currentOffsets();
        if (offsets.isEmpty()) {
            // Holding nothing proves nothing is served wrongly; partitions assigned but not set up yet wait for it.
            return kafka.assignment().isEmpty();
        }
        try {
            kafka.commitSync(offsets, CONFIRM_TIMEOUT);
            LOG.log(Level.INFO, "Group {0}: still a member after this process stood still", group);
            return true;
        } catch (CommitFailedException | RebalanceInProgressException | RetriableException e) {
            // Refused (dropped from the group, or a rebalance under way) or no answer: the next poll tells.
            LOG.log(Level.WARNING, "Group {0}: this process stood still and the group did not take its commit ({1});"
                                   + " serving nothing until it has rejoined", group, e.getMessage());
            return false;
        } catch (org.apache.kafka.common.errors.InterruptException e) {
            throw e;
        } catch (KafkaException e) {
            // Not about membership (e.g. not authorized to commit): the periodic commits will say so; do not keep
            // the group's requests waiting on a proof that cannot come.
            LOG.log(Level.WARNING, "Group {0}: the commit that confirms membership after a pause failed ({1}); "
                                   + "serving on", group, e.getMessage());
            return true;
        }
    }
}
