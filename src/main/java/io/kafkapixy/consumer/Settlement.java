package io.kafkapixy.consumer;

/** How a client is done with a message it was handed. */
public enum Settlement {
    /** Done with it. */
    ACK,
    /**
     * Never deliver it again: a share group's broker archives it; in the other modes it is acked, and counted apart
     * from the acks.
     */
    REJECT
}
