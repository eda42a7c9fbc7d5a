package io.kafkapixy.consumer;

/**
 * What a client says of a message it was handed and holds: done with it, never again, or not done yet. Each applies
 * only to a message out with a client of the group on this instance; any other is answered {@code ack timeout}.
 */
public enum Settlement {
    /** Done with it. */
    ACK,
    /**
     * Never deliver it again: written to the dead-letter topic first when one is set ({@link DeadLettering}); then a
     * share group's broker archives it; in the other modes it is acked, and counted as a reject besides.
     */
    REJECT,
    /**
     * Not done yet: its {@code ack_timeout} starts again from now (no retry is spent). A share group's record stays
     * locked at the broker meanwhile, its lock renewed as it needs.
     */
    RENEW
}
