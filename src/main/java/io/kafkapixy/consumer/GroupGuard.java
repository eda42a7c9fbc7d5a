package io.kafkapixy.consumer;

/**
 * Decides whether this instance may join a consumer group; asked before a new member of the group is made here, on
 * the requesting thread.
 */
@FunctionalInterface
public interface GroupGuard {

    GroupGuard NONE = group -> {
    };

    /** @throws io.kafkapixy.errors.PixyException when this instance must not consume as {@code group} */
    void check(String group);
}
