package io.kafkapixy.admin;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;

/**
 * The offsets and consumers calls for share groups, whose state the broker keeps apart from consumer groups': a
 * partition's offset is the group's start offset (every record below it is settled; -1 before the group first read
 * the partition), its lag the broker's count of records not yet settled, and there is no metadata or sparse acks.
 */
final class ShareGroupAdmin {

    private final Admin admin;
    private final AdminCalls calls;
    private final LogRanges ranges;

    ShareGroupAdmin(Admin admin, AdminCalls calls, LogRanges ranges) {
        this.admin = admin;
        this.calls = calls;
        this.ranges = ranges;
    }

    List<PartitionOffsets> getOffsets(String group, String topic) {
        List<TopicPartition> partitions = ranges.partitions(topic, "failed to get topic partitions: ");
        Map<TopicPartition, Long> begin = ranges.offsets(partitions, OffsetSpec.earliest(),
                "failed to fetch oldest offset");
        Map<TopicPartition, Long> end = ranges.offsets(partitions, OffsetSpec.latest(),
                "failed to fetch newest offset");
        Map<TopicPartition, SharePartitionOffsetInfo> state = shareOffsets(group, partitions);
        List<PartitionOffsets> result = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            long b = begin.get(tp);
            long e = end.get(tp);
            SharePartitionOffsetInfo info = state.get(tp);
            long offset = info == null ? -1 : info.startOffset();
            long lag = info == null ? 0 : info.lag().orElse(e - offset);
            result.add(new PartitionOffsets(tp.partition(), b, e, e - b, offset, lag, "", ""));
        }
        return result;
    }

    private Map<TopicPartition, SharePartitionOffsetInfo> shareOffsets(String group, List<TopicPartition> partitions) {
        try {
            Map<TopicPartition, SharePartitionOffsetInfo> found = calls.await("failed to fetch offsets",
                    admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()
                            .topicPartitions(partitions))).partitionsToOffsetInfo(group));
            // a partition the group has not read yet comes back without a value
            Map<TopicPartition, SharePartitionOffsetInfo> result = new HashMap<>();
            found.forEach((tp, info) -> {
                if (info != null) {
                    result.put(tp, info);
                }
            });
            return result;
        } catch (AdminCalls.Failure f) {
            if (f.getCause() instanceof GroupIdNotFoundException) {
                return Map.of();
            }
            throw f;
        }
    }

    /**
     * Moves the group's start offsets through the share-group call. The broker takes it only while the group has no
     * members; its refusal is answered {@code GROUP_ACTIVE} with its text. Metadata has no place in a share group and
     * is not stored.
     */
    Void setOffsets(String group, String topic, List<OffsetUpdate> updates) {
        Set<TopicPartition> existing = new java.util.HashSet<>(ranges.partitions(topic, ""));
        Map<TopicPartition, Long> starts = new LinkedHashMap<>();
        for (OffsetUpdate u : updates) {
            TopicPartition tp = new TopicPartition(topic, u.partition());
            if (!existing.contains(tp)) {
                throw new PixyException(ErrorKind.UNKNOWN_TOPIC, PixyAdmin.UNKNOWN_TOPIC_TEXT);
            }
            starts.put(tp, u.offset());
        }
        if (starts.isEmpty()) {
            return null;
        }
        try {
            calls.await("failed to commit offsets", admin.alterShareGroupOffsets(group, starts).all());
        } catch (AdminCalls.Failure f) {
            if (f.getCause() instanceof GroupNotEmptyException e) {
                throw new PixyException(ErrorKind.GROUP_ACTIVE, "share group " + group + " is active: "
                        + e.getMessage());
            }
            throw f;
        }
        return null;
    }

    /**
     * Every share group with members holding partitions of the topic (none where the brokers have no share groups);
     * groups that fail to answer are skipped, as the consumer groups' listing skips them.
     */
    SortedMap<String, SortedMap<String, List<Integer>>> allConsumers(String topic) {
        SortedMap<String, SortedMap<String, List<Integer>>> result = new TreeMap<>();
        List<String> groups;
        try {
            groups = calls.await("failed to fetch share groups",
                    admin.listGroups(ListGroupsOptions.forShareGroups()).all()).stream().map(l -> l.groupId()).toList();
        } catch (AdminCalls.Failure | PixyException notServed) {
            return result;
        }
        if (groups.isEmpty()) {
            return result;
        }
        admin.describeShareGroups(groups).describedGroups().forEach((id, future) -> {
            try {
                SortedMap<String, List<Integer>> owners = owners(calls.await("failed to describe group", future),
                        topic);
                if (!owners.isEmpty()) {
                    result.put(id, owners);
                }
            } catch (AdminCalls.Failure | PixyException skipped) {
                // gone meanwhile, or not answering
            }
        });
        return result;
    }

    /**
     * The group's members holding partitions of the topic, by client id (by member id where several members share
     * one): in a share group several members may hold the same partition.
     *
     * @throws PixyException {@code CONSUMERS_NOT_FOUND} with the original's texts
     */
    SortedMap<String, SortedMap<String, List<Integer>>> listConsumers(String topic, String group) {
        ShareGroupDescription d;
        try {
            d = calls.await("failed to describe group",
                    admin.describeShareGroups(List.of(group)).describedGroups().get(group));
        } catch (AdminCalls.Failure f) {
            throw new PixyException(ErrorKind.CONSUMERS_NOT_FOUND,
                    f.getCause() instanceof GroupIdNotFoundException ? "unknown consumer group " + group
                            : f.getMessage());
        }
        if (d.groupState() == GroupState.DEAD) {
            throw new PixyException(ErrorKind.CONSUMERS_NOT_FOUND, "unknown consumer group " + group);
        }
        SortedMap<String, List<Integer>> owners = owners(d, topic);
        if (owners.isEmpty()) {
            throw new PixyException(ErrorKind.CONSUMERS_NOT_FOUND, "topic " + topic + " is not consumed by " + group);
        }
        SortedMap<String, SortedMap<String, List<Integer>>> result = new TreeMap<>();
        result.put(group, owners);
        return result;
    }

    private static SortedMap<String, List<Integer>> owners(ShareGroupDescription d, String topic) {
        return Owners.of(d.members().stream().map(m -> new Owners.Member(m.clientId(), m.consumerId(),
                m.assignment().topicPartitions())).toList(), topic);
    }
}
