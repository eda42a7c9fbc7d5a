package io.kafkapixy.offset.store;

import java.util.Collection;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

/** Where a group's committed offsets are read and written, as stored (negative values included where possible). */
public interface OffsetStore {

    /** The committed offset of each partition; {@link Committed#NONE} where there is none. */
    Map<TopicPartition, Committed> fetch(String group, Collection<TopicPartition> partitions);

    void commit(String group, Map<TopicPartition, Committed> offsets);
}
