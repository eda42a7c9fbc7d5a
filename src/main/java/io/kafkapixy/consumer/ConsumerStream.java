package io.kafkapixy.consumer;

import java.time.Duration;
import java.util.List;

import io.kafkapixy.errors.PixyException;

/**
 * One streaming consumer of a group's topics on this instance (see docs/streaming.md): it takes messages while it has
 * credits (messages its client said it can take), and when it ends every message it was handed and did not ack or
 * nack is offered again at once. A classic group serves it from its member ({@link MessageStream}), a share group from
 * its share consumers ({@link io.kafkapixy.consumer.share.ShareStream}).
 *
 * <p>Made by {@link Consumers#openStream}. Its methods are for the one thread of the stream's transport (one request
 * at a time); deliveries and the end come through the {@link Sink} from any thread, one call at a time.
 */
public interface ConsumerStream {

    /** Where the stream's messages go. Called one at a time, under a lock of the consumer side: must not block. */
    interface Sink {

        /**
         * A message for the client; one credit was spent on it. It may wait for {@link #flush()}. True when the
         * messages delivered before it were sent just now (a batch full), so that only this one still waits.
         */
        boolean deliver(ConsumedMessage message);

        /**
         * Sends what {@link #deliver} was given; called after each round of hand-outs. False when it could not (the
         * stream is ending): those messages never reached the client.
         */
        boolean flush();

        /** Whether the client takes what is sent now; while not, the stream gets nothing (see {@link #resume()}). */
        boolean ready();

        /**
         * The proxy ended the stream (shutting down, the member failed, a topic refused); called once, never after
         * the client ended it with {@link #close()}. The {@code givenBack} messages it held are given back already.
         */
        void end(PixyException reason, int givenBack);

        /** The client's address as the transport knows it ({@code host:port}), for operators; empty if unknown. */
        default String peer() {
            return "";
        }
    }

    /** A message to ack, reject, renew or nack. */
    record Ack(String topic, int partition, long offset) {
    }

    /**
     * The client can take {@code n} more messages.
     *
     * @throws PixyException the credits not yet spent would be over the limit; the stream is left as it was
     */
    void credit(long n);

    /**
     * Acks messages out with clients of the group on this instance (as the unary Ack does). Returns how many were not
     * taken: not out with a client (never offered, acked already), or of partitions no longer held here.
     */
    int ack(List<Ack> acks);

    /** Rejects messages ("never deliver this again", see {@link Settlement#REJECT}); returns how many were not taken. */
    int reject(List<Ack> rejects);

    /**
     * Restarts the {@code ack_timeout} of messages out with clients of the group here (see {@link Settlement#RENEW});
     * returns how many were not.
     */
    int renew(List<Ack> renewals);

    /**
     * Gives back a message this stream was handed: it is offered again (to this stream or another client) after
     * {@code delay} instead of after {@code ack_timeout}. False when this stream does not hold it.
     *
     * @throws PixyException {@code delay} is longer than {@code consumer.ack_timeout}
     */
    boolean nack(String topic, int partition, long offset, Duration delay);

    /**
     * The client ended the stream (or is gone): what it held is offered again at once. Returns how many messages
     * that was; 0 when the stream had ended already.
     */
    int close();

    /** The topics this stream consumes, each once, in the order subscribed. */
    List<String> topics();

    /** The client reads again (see {@link Sink#ready()}): serve it what is ready. */
    void resume();
}
