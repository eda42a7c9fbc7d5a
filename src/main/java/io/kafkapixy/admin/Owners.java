package io.kafkapixy.admin;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.common.TopicPartition;

/**
 * The members of a group of either kind that hold partitions of a topic, as the consumers calls show them: by client
 * id (an instance's {@code client_id}, as the original shows it), or by member id where several members share a
 * client id (in a share group several members may hold one partition).
 */
final class Owners {

    /** A member as the brokers describe it. */
    record Member(String clientId, String memberId, Collection<TopicPartition> assigned) {
    }

    private Owners() {
    }

    /** The partitions of {@code topic} each member holds, sorted, members holding none left out. */
    static SortedMap<String, List<Integer>> of(List<Member> members, String topic) {
        Map<String, Long> clientIdCount = new HashMap<>();
        members.forEach(m -> clientIdCount.merge(m.clientId(), 1L, Long::sum));
        SortedMap<String, List<Integer>> owners = new TreeMap<>();
        for (Member m : members) {
            List<Integer> parts = new ArrayList<>(new TreeSet<>(m.assigned().stream()
                    .filter(tp -> tp.topic().equals(topic)).map(TopicPartition::partition).toList()));
            if (!parts.isEmpty()) {
                owners.put(clientIdCount.get(m.clientId()) == 1 ? m.clientId() : m.memberId(), parts);
            }
        }
        return owners;
    }
}
