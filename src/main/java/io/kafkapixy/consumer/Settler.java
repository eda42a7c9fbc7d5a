package io.kafkapixy.consumer;

import io.kafkapixy.errors.PixyException;

/**
 * Where a parked request settles what happened to it: the group member it waits in, classic ({@link GroupState}) or
 * share ({@link io.kafkapixy.consumer.share.ShareTopic}). Called by {@link PendingConsume} on the transport's thread.
 */
public interface Settler {

    /** A request stops waiting: unless a message was handed over at the last moment, it is answered {@code answer}. */
    void giveUp(String topic, WaitingRequest r, PixyException answer);

    /**
     * A message handed to a request never reached its client: it is offered again at once as the same delivery.
     * False when it was settled or handed out again since, or is no longer held here.
     */
    boolean returnOffer(ConsumedMessage m);

    /** Acks a message held here; false when it is not held here. */
    boolean ack(String topic, int partition, long offset);
}
