package io.kafkapixy.admin;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** A topic's partitions and their logs' oldest and newest offsets, for the offsets calls of both kinds of group. */
final class LogRanges {

    private final Admin admin;
    private final AdminCalls calls;

    LogRanges(Admin admin, AdminCalls calls) {
        this.admin = admin;
        this.calls = calls;
    }

    /** The topic's partitions in id order; {@code UNKNOWN_TOPIC} with {@code prefix} + sarama's text if none. */
    List<TopicPartition> partitions(String topic, String prefix) {
        try {
            TopicDescription d = calls.await("failed to get topic partitions",
                    admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
            List<TopicPartition> result = new ArrayList<>();
            d.partitions().forEach(p -> result.add(new TopicPartition(topic, p.partition())));
            result.sort(java.util.Comparator.comparingInt(TopicPartition::partition));
            return result;
        } catch (AdminCalls.Failure f) {
            if (f.getCause() instanceof UnknownTopicOrPartitionException) {
                throw new PixyException(ErrorKind.UNKNOWN_TOPIC, prefix + PixyAdmin.UNKNOWN_TOPIC_TEXT);
            }
            throw f;
        }
    }

    /** The oldest ({@code earliest}) or newest ({@code latest}) offset of each partition. */
    Map<TopicPartition, Long> offsets(List<TopicPartition> partitions, OffsetSpec spec, String context) {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(tp -> request.put(tp, spec));
        Map<TopicPartition, Long> result = new HashMap<>();
        calls.await(context, admin.listOffsets(request).all()).forEach((tp, info) -> result.put(tp, info.offset()));
        return result;
    }
}
