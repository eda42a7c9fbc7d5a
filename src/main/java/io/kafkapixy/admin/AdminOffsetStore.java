package io.kafkapixy.admin;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Committed offsets through the Admin API. kafka-clients cannot carry negative offsets either way: a committed -1
 * or -2 reads as "none", and writing one is refused before any request is sent.
 */
final class AdminOffsetStore implements OffsetStore {

    private final Admin admin;
    private final AdminCalls calls;

    AdminOffsetStore(Admin admin, AdminCalls calls) {
        this.admin = admin;
        this.calls = calls;
    }

    @Override
    public Map<TopicPartition, Committed> fetch(String group, Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> raw = calls.await("failed to fetch offsets", admin
                .listConsumerGroupOffsets(Map.of(group, new ListConsumerGroupOffsetsSpec()
                        .topicPartitions(List.copyOf(partitions)))).partitionsToOffsetAndMetadata(group));
        Map<TopicPartition, Committed> result = new HashMap<>();
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata om = raw.get(tp);
            result.put(tp, om == null ? Committed.NONE : new Committed(om.offset(), om.metadata()));
        }
        return result;
    }

    @Override
    public void commit(String group, Map<TopicPartition, Committed> offsets) {
        Map<TopicPartition, OffsetAndMetadata> raw = new HashMap<>();
        offsets.forEach((tp, c) -> raw.put(tp, new OffsetAndMetadata(c.offset(), c.metadata())));
        calls.await("failed to commit offsets", admin.alterConsumerGroupOffsets(group, raw).all());
    }
}
