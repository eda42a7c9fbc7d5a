package io.kafkapixy.security;

import java.util.function.Supplier;

import io.kafkapixy.errors.PixyException;

/**
 * The one check every API makes before it does anything for a call: may this client do this operation on this topic
 * as this group? A refusal is counted and logged ({@link Refusals}) and answered 403 / PERMISSION_DENIED.
 */
public final class Guard {

    private static final System.Logger LOG = System.getLogger(Guard.class.getName());

    private final Refusals refusals;

    public Guard(Refusals refusals) {
        this.refusals = refusals;
    }

    /** Refusals counted by {@code count} (client, operation) and logged as warnings. */
    public static Guard logging(java.util.function.BiConsumer<String, String> count) {
        return new Guard(new Refusals(count, java.time.Clock.systemUTC(),
                line -> LOG.log(System.Logger.Level.WARNING, line)));
    }

    /**
     * As {@link #check(NamedClient, Operation, String, String)}, the group found only when the client's permissions
     * depend on it: a request's parameters are not parsed twice for a client that may do everything.
     */
    public void checkLazily(NamedClient client, Operation operation, String topic, Supplier<String> group) {
        if (!client.mayDoEverything()) {
            check(client, operation, topic, group.get());
        }
    }

    /**
     * @param topic null when the call names none
     * @param group null when the call names none
     * @throws PixyException {@link PixyException#forbidden()} when {@code client} may not
     */
    public void check(NamedClient client, Operation operation, String topic, String group) {
        if (client.may(operation, topic, group)) {
            return;
        }
        boolean topicRefused = topic != null && !client.may(operation, topic, null);
        boolean groupRefused = group != null && !client.may(operation, null, group);
        String resource = (topicRefused ? "topic " + topic : "") + (topicRefused && groupRefused ? ", " : "")
                          + (groupRefused ? "group " + group : "");
        refusals.refused(client, operation, resource);
        throw PixyException.forbidden();
    }
}
