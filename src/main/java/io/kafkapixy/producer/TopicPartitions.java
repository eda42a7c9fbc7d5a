package io.kafkapixy.producer;

import java.util.List;

import io.kafkapixy.errors.PixyException;
import org.apache.kafka.common.PartitionInfo;

/** The partitions of a topic, for choosing one. */
interface TopicPartitions {

    /**
     * Returns the topic's partitions (non-empty), creating the topic if the cluster auto-creates topics.
     *
     * @throws PixyException {@code PRODUCE_UNKNOWN_TOPIC} when the topic does not exist and will not be created
     */
    List<PartitionInfo> of(String topic);

    /** Whether the topic's partitions have been found (it exists, as far as this instance knows). */
    default boolean known(String topic) {
        return true;
    }

    /** Whether the topic's partitions are at hand without asking a broker (it was produced to lately). */
    default boolean fresh(String topic) {
        return known(topic);
    }

    /** Forgets what is known of a topic that turned out not to exist (any more). */
    default void forget(String topic) {
    }
}
