package io.kafkapixy.security;

import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** One {@code allow} entry of a client: these operations on these topics and on these groups. */
record AccessRule(Set<Operation> operations, List<NamePattern> topics, List<NamePattern> groups) {

    AccessRule {
        // an EnumSet: iterated on every call, and immutable as the record's other parts
        operations = Collections.unmodifiableSet(operations.isEmpty() ? EnumSet.noneOf(Operation.class)
                : EnumSet.copyOf(operations));
        topics = List.copyOf(topics);
        groups = List.copyOf(groups);
    }

    boolean allowsOnTopic(Operation wanted, String topic) {
        return allows(wanted) && anyMatches(topics, topic);
    }

    boolean allowsOnGroup(Operation wanted, String group) {
        return allows(wanted) && anyMatches(groups, group);
    }

    private boolean allows(Operation wanted) {
        for (Operation granted : operations) {
            if (granted.allows(wanted)) {
                return true;
            }
        }
        return false;
    }

    private static boolean anyMatches(List<NamePattern> patterns, String name) {
        for (NamePattern p : patterns) {
            if (p.matches(name)) {
                return true;
            }
        }
        return false;
    }
}
