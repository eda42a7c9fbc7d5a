package io.kafkapixy.security;

import java.util.List;
import java.util.Set;

/** One {@code allow} entry of a client: these operations on these topics and on these groups. */
record AccessRule(Set<Operation> operations, List<NamePattern> topics, List<NamePattern> groups) {

    AccessRule {
        operations = Set.copyOf(operations);
        topics = List.copyOf(topics);
        groups = List.copyOf(groups);
    }

    boolean allowsOnTopic(Operation wanted, String topic) {
        return allows(wanted) && topics.stream().anyMatch(p -> p.matches(topic));
    }

    boolean allowsOnGroup(Operation wanted, String group) {
        return allows(wanted) && groups.stream().anyMatch(p -> p.matches(group));
    }

    private boolean allows(Operation wanted) {
        return operations.stream().anyMatch(o -> o.allows(wanted));
    }
}
