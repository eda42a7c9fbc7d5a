package io.kafkapixy.security;

import java.util.List;

/**
 * A client of a clients file, known by its name (the principal that logs, meters and refusals name), and what it may
 * do. Permissions are checked per resource, as Kafka's ACLs are: a call on a topic and a group needs the operation on
 * the topic from some rule and on the group from some rule (the same one or another); no rule denies.
 */
public final class NamedClient {

    private static final NamePattern EVERY = new NamePattern("*");

    private final String name;
    private final List<AccessRule> allow;
    /** Asked on every REST call: worked out once. */
    private final boolean everything;

    /** A client known by a credential but given no permission (a valid JWT whose subject is no client's). */
    public static NamedClient withoutPermissions(String name) {
        return new NamedClient(name, List.of());
    }

    public NamedClient(String name, List<AccessRule> allow) {
        this.name = name;
        this.allow = List.copyOf(allow);
        this.everything = this.allow.stream().anyMatch(r -> r.operations().contains(Operation.ALL)
                && r.topics().contains(EVERY) && r.groups().contains(EVERY));
    }

    /** The principal that logs, meters and refusals name. */
    public String name() {
        return name;
    }

    public List<AccessRule> allow() {
        return allow;
    }

    /**
     * Whether this client may do {@code operation} on {@code topic} as {@code group}; a null topic or group is a
     * call that does not name one (listing topics names neither).
     */
    public boolean may(Operation operation, String topic, String group) {
        return (topic == null || anyRuleAllows(operation, topic, true))
               && (group == null || anyRuleAllows(operation, group, false));
    }

    // loops rather than streams: this runs for every call (measured, docs/performance.md#permissions)
    private boolean anyRuleAllows(Operation operation, String name, boolean topic) {
        for (AccessRule rule : allow) {
            if (topic ? rule.allowsOnTopic(operation, name) : rule.allowsOnGroup(operation, name)) {
                return true;
            }
        }
        return false;
    }

    /** Whether this client may do everything on every topic and group (a bearer token, an open instance). */
    public boolean mayDoEverything() {
        return everything;
    }

    /** Whether this client may describe {@code topic}: what a listing of topics shows it. */
    public boolean mayDescribeTopic(String topic) {
        return may(Operation.DESCRIBE, topic, null);
    }

    /** Whether this client may describe {@code group}: what a listing of consumers shows it. */
    public boolean mayDescribeGroup(String group) {
        return may(Operation.DESCRIBE, null, group);
    }

    @Override
    public String toString() {
        return "NamedClient[" + name + ", " + allow + "]";
    }
}
