package io.kafkapixy.consumer;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One kind of group on this instance: classic consumer groups ({@link ClassicGroups}, with Kafka's or ZooKeeper's
 * membership) or share groups ({@link io.kafkapixy.consumer.share.ShareGroups}). {@link Consumers} picks a group's kind once per call and hands the
 * call over; what is the same for every kind (a disabled consumer, the instance's limits on parked and blocked
 * requests, the arrival time a long poll counts from) stays there. A third kind implements this and is picked the
 * same way.
 *
 * <p>Implementations are thread-safe and never block a caller, except {@link #consume} and {@link #openStream} while
 * {@link #needsSetUp} says they would set something up first.
 */
public interface GroupKind {

    /**
     * Parks a request for the next message of {@code topic} for {@code group}, answered {@code long polling timeout}
     * at {@code arrival} plus {@code long_polling_timeout}; with {@code autoAck} its message counts as acked once its
     * transport says it was delivered, and it is handed over only while {@code receiver} can take it.
     *
     * @throws io.kafkapixy.errors.PixyException shutting down or too many requests, before anything is parked
     */
    PendingConsume consume(String group, String topic, Instant arrival, boolean autoAck, Receiver receiver);

    /**
     * Opens a stream of {@code group}'s messages of {@code topics}, served beside the unary requests.
     *
     * @throws io.kafkapixy.errors.PixyException shutting down
     */
    ConsumerStream openStream(String group, List<String> topics, long maxCredits, ConsumerStream.Sink sink);

    /**
     * The record headers of a message out with a client of {@code group} here, null when none is (for the spans of
     * its settlement: the record's trace context).
     */
    List<org.apache.kafka.common.header.Header> heldHeaders(String group, String topic, int partition, long offset);

    /** An ack carried by a consume request: applied when this instance handed out that message, else dropped. */
    void ackQuietly(String group, String topic, int partition, long offset);

    /**
     * Settles a message this instance handed out. Completes when the group's state took it, or with a
     * {@link io.kafkapixy.errors.PixyException}: {@code acks channel missing ...} when this instance never handed out a
     * message of that partition, {@code ack timeout} when that message is not out from here.
     */
    CompletableFuture<Void> settle(String group, String topic, int partition, long offset, Settlement how);

    /**
     * Whether a consume or stream of {@code group} and {@code topic} would first set something up here (a new member,
     * a share group's first use of the topic): milliseconds of work, and it may wait before it is parked.
     */
    boolean needsSetUp(String group, String topic);

    /** Consume requests parked right now, over this kind's groups. */
    int parkedRequests();

    /** A copy of what this kind's groups hold ({@code only}: just that group). */
    List<InFlight.Group> inFlight(String only, InFlight.Rows rows);

    /** Takes no more requests; parked ones are answered {@code service is shutting down}; draining begins. */
    void beginClose();

    /** Waits until every group has drained and left, or {@code deadlineNanos} ({@link System#nanoTime}) passed. */
    void awaitClosed(long deadlineNanos);
}
