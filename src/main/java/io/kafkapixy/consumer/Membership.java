package io.kafkapixy.consumer;

import java.util.Set;

/**
 * How a group member gets its partitions: through Kafka's group protocol ({@link KafkaMembership}) or, for groups
 * shared with original Kafka-Pixy instances, through the original's ZooKeeper layout. Called on the member's
 * owning thread only, once per poll.
 */
public interface Membership {

    /** Makes the member's partitions follow the topics wanted on this instance. */
    void follow(Set<String> wanted);

    /** After the final commit, before the consumer closes: give up what membership holds beyond the consumer. */
    default void leave() {
    }

    /** Makes the {@link Membership} of one group member. */
    @FunctionalInterface
    interface Factory {
        Membership create(String group, org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> kafka,
                          PartitionLifecycle lifecycle);

        /**
         * The longest a revoked partition may keep its member waiting for acks before it lets go, or null when only
         * the acks' own {@code ack_timeout} bounds it (the original's rule).
         */
        default java.time.Duration revokeWaitLimit() {
            return null;
        }
    }
}
