package io.kafkapixy.consumer;

import java.util.Collection;

import org.apache.kafka.common.TopicPartition;

/**
 * What a {@link GroupConsumer} does when its {@link Membership} gives or takes partitions. Called on the member's
 * owning thread only.
 */
public interface PartitionLifecycle {

    /** A topic is asked for on this instance for the first time (its head is where a new group starts). */
    void topicWanted(String topic);

    /** The partitions are now this member's: set them up from their committed offsets. */
    void assigned(Collection<TopicPartition> partitions);

    /** The partitions go to another member: await acks briefly, commit, let go. */
    void revoked(Collection<TopicPartition> partitions);

    /** The partitions were taken without a chance to commit (the member fell out of the group). */
    void lost(Collection<TopicPartition> partitions);

    /** From now on the member hands out messages only while {@code gate} is open. */
    default void guardWith(ServingGate gate) {
    }

    /** The gate given to {@link #guardWith} may have opened again: serve the requests that wait. */
    default void gateOpened() {
    }

    /** The offsets of the partitions set up, as the next commit would carry them. */
    default java.util.Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> currentOffsets() {
        return java.util.Map.of();
    }
}
