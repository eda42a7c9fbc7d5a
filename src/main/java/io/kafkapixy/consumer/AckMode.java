package io.kafkapixy.consumer;

/**
 * What a consume request acknowledges: nothing, the message it returns, or an earlier message given by partition and
 * offset.
 */
public sealed interface AckMode {

    AckMode NONE = new None();
    AckMode AUTO = new Auto();

    static AckMode explicit(int partition, long offset) {
        return new Explicit(partition, offset);
    }

    /** Nothing is acknowledged; the returned message stays pending until acked or {@code ack_timeout}. */
    record None() implements AckMode {
    }

    /** The returned message is acknowledged before the response is sent (at-most-once). */
    record Auto() implements AckMode {
    }

    /** An earlier message of the same group and topic is acknowledged, before this request is served. */
    record Explicit(int partition, long offset) implements AckMode {
    }
}
