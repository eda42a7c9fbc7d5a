package io.kafkapixy.consumer;

/**
 * Whether a group member may hand out messages right now. A membership that can lose partitions without being told
 * at once (a ZooKeeper session that expired while the process stood still) keeps it shut until it has checked what it
 * still holds; a message handed out meanwhile could belong to another member already. Read under the group's lock on
 * every dispatch, from any thread: it must be cheap and never block.
 */
@FunctionalInterface
public interface ServingGate {

    ServingGate ALWAYS_OPEN = () -> true;

    boolean open();
}
