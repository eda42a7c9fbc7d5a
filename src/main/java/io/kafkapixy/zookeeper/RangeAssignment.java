package io.kafkapixy.zookeeper;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The ZooKeeper-mode partition assignment of the original ({@code groupcsm.assignTopicPartitions} /
 * {@code resolvePartitions}). Every member of a group computes it independently from the same subscriptions
 * snapshot, so it must give exactly the original's result for Go and Java instances to split a group without
 * overlap or gaps. Pure: no I/O, no state.
 */
final class RangeAssignment {

    private RangeAssignment() {
    }

    /**
     * Range-assigns one topic's partitions to the members subscribed to it: partitions sorted ascending as int32,
     * members sorted byte-wise ({@link Utf8Order}); with {@code n = partitions / members} and
     * {@code extra = partitions - n * members}, members in order each take the next {@code n} partitions, the first
     * {@code extra} of them one more. Members left with no partition get no entry, so empty partitions or members
     * give an empty map.
     *
     * <p>Both lists are taken as sets: a duplicate can come from neither a ZooKeeper snapshot (member ids are child
     * names, topics are JSON object keys) nor Kafka metadata, and the original's accidental behaviour on one (a
     * duplicated member overwrites its own first share, orphaning it) is not worth reproducing.
     *
     * @param partitions the topic's partition ids, any order; not modified
     * @param members    the ids of the members subscribed to the topic, any order; not modified
     * @return member id to its partitions (ascending), iterating in member order; unmodifiable
     * @throws NullPointerException if an argument or an element is null
     */
    static Map<String, List<Integer>> assign(List<Integer> partitions, List<String> members) {
        // TreeSet both sorts and drops duplicates; Integer order is int32 order.
        List<Integer> sortedPartitions = List.copyOf(new TreeSet<>(partitions));
        TreeSet<String> sortedMembers = new TreeSet<>(Utf8Order.COMPARATOR);
        for (String member : members) {
            sortedMembers.add(Objects.requireNonNull(member, "member"));
        }
        if (sortedPartitions.isEmpty() || sortedMembers.isEmpty()) {
            return Map.of();
        }
        int perMember = sortedPartitions.size() / sortedMembers.size();
        int extra = sortedPartitions.size() - perMember * sortedMembers.size();
        Map<String, List<Integer>> assigned = new LinkedHashMap<>();
        int begin = 0;
        for (String member : sortedMembers) {
            int end = begin + perMember;
            if (extra > 0) {
                end++;
                extra--;
            }
            if (end > begin) {
                assigned.put(member, sortedPartitions.subList(begin, end));
            }
            begin = end;
        }
        return Collections.unmodifiableMap(assigned);
    }

    /**
     * The partitions assigned to {@code self} in every topic it subscribes to: a topic's members are all members whose
     * subscription contains it, and its partitions are {@code assign}ed among them.
     *
     * <p>A topic of {@code self} absent from {@code partitionsByTopic} is skipped: the original logs
     * {@code Topic <t> missing} and consume requests for it just time out; the caller, which knows its metadata, logs
     * that. Topics where {@code self} gets no partition (more members than partitions) have no entry.
     *
     * @param self              this instance's member id (its {@code client_id})
     * @param subscriptions     member id to its subscribed topics, as read from ZooKeeper; a value may be null
     *                          or empty, meaning no topic
     * @param partitionsByTopic topic to its partition ids, from the Kafka metadata
     * @return topic to the partitions of {@code self} (ascending, non-empty), iterating in byte-wise topic order;
     *         unmodifiable
     */
    static Map<String, List<Integer>> resolvePartitions(String self, Map<String, List<String>> subscriptions,
                                                        Map<String, List<Integer>> partitionsByTopic) {
        Objects.requireNonNull(self, "self");
        List<String> ownTopics = subscriptions.get(self);
        if (ownTopics == null || ownTopics.isEmpty()) {
            return Map.of();
        }
        // Only topics self subscribes to matter, so invert the snapshot for those alone.
        Map<String, List<String>> membersByTopic = new TreeMap<>(Utf8Order.COMPARATOR);
        for (String topic : ownTopics) {
            membersByTopic.put(Objects.requireNonNull(topic, "topic"), new ArrayList<>());
        }
        for (Map.Entry<String, List<String>> subscription : subscriptions.entrySet()) {
            List<String> topics = subscription.getValue();
            if (topics == null) {
                continue;
            }
            // A set, so that a member listing a topic twice counts once.
            for (String topic : Set.copyOf(topics)) {
                List<String> members = membersByTopic.get(topic);
                if (members != null) {
                    members.add(subscription.getKey());
                }
            }
        }
        Map<String, List<Integer>> resolved = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> topicMembers : membersByTopic.entrySet()) {
            List<Integer> partitions = partitionsByTopic.get(topicMembers.getKey());
            if (partitions == null) {
                continue;
            }
            List<Integer> own = assign(partitions, topicMembers.getValue()).get(self);
            if (own != null) {
                resolved.put(topicMembers.getKey(), own);
            }
        }
        return Collections.unmodifiableMap(resolved);
    }
}
