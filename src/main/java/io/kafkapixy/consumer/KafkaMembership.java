package io.kafkapixy.consumer;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;

/**
 * Membership through Kafka's own group protocol (design.md §1, {@code membership: kafka}): the consumer subscribes
 * to the wanted topics and Kafka's (cooperative) rebalances hand out the partitions.
 */
final class KafkaMembership implements Membership {

    private static final System.Logger LOG = System.getLogger(KafkaMembership.class.getName());
    /**
     * How long before Kafka's rebalance timeout (the member's {@code max.poll.interval.ms}) a revoked partition stops
     * waiting for acks: a member that has not polled by then is dropped from the group, and its partitions would be
     * lost uncommitted.
     */
    static final Duration REBALANCE_MARGIN = Duration.ofSeconds(15);

    static final Membership.Factory FACTORY = new Membership.Factory() {
        @Override
        public Membership create(String group, Consumer<byte[], byte[]> kafka, PartitionLifecycle lifecycle) {
            return new KafkaMembership(group, kafka, lifecycle);
        }

        @Override
        public Duration revokeWaitLimit() {
            return ConsumerSettings.MAX_POLL_INTERVAL.minus(REBALANCE_MARGIN);
        }
    };

    private final String group;
    private final Consumer<byte[], byte[]> kafka;
    private final PartitionLifecycle lifecycle;
    private final ConsumerRebalanceListener listener;
    private Set<String> subscribed = Set.of();

    KafkaMembership(String group, Consumer<byte[], byte[]> kafka, PartitionLifecycle lifecycle) {
        this.group = group;
        this.kafka = kafka;
        this.lifecycle = lifecycle;
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
    }

    @Override
    public void follow(Set<String> wanted) {
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
}
