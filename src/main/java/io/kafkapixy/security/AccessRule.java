package io.kafkapixy.security;

import java.util.List;
import java.util.Set;

/** One {@code allow} entry of a client: these operations on these topics and on these groups. */
final class AccessRule {

    private final Set<Operation> operations;
    private final List<NamePattern> topics;
    private final List<NamePattern> groups;
    /** Bit {@code ordinal} set for each operation the granted ones allow: asked on every call, worked out once. */
    private final int allowed;

    AccessRule(Set<Operation> operations, List<NamePattern> topics, List<NamePattern> groups) {
        this.operations = Set.copyOf(operations);
        this.topics = List.copyOf(topics);
        this.groups = List.copyOf(groups);
        int bits = 0;
        for (Operation wanted : Operation.values()) {
            for (Operation granted : this.operations) {
                if (granted.allows(wanted)) {
                    bits |= 1 << wanted.ordinal();
                }
            }
        }
        this.allowed = bits;
    }

    Set<Operation> operations() {
        return operations;
    }

    List<NamePattern> topics() {
        return topics;
    }

    List<NamePattern> groups() {
        return groups;
    }

    boolean allowsOnTopic(Operation wanted, String topic) {
        return allows(wanted) && anyMatches(topics, topic);
    }

    boolean allowsOnGroup(Operation wanted, String group) {
        return allows(wanted) && anyMatches(groups, group);
    }

    private boolean allows(Operation wanted) {
        return (allowed & 1 << wanted.ordinal()) != 0;
    }

    private static boolean anyMatches(List<NamePattern> patterns, String name) {
        for (NamePattern p : patterns) {
            if (p.matches(name)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "AccessRule[operations=" + operations + ", topics=" + topics + ", groups=" + groups + "]";
    }
}
