package io.kafkapixy.consumer;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.kafkapixy.offset.store.OffsetStore;
import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.consumer.share.ShareGroupSetup;
import io.kafkapixy.consumer.share.ShareGroups;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.tracing.Tracing;
import io.opentelemetry.context.Context;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ShareConsumer;

/**
 * The consumer side of one cluster: the façade every transport calls. Each call finds the group's kind once
 * ({@link GroupKind}: classic groups, or share groups where {@code membership} or {@code share_groups} says so) and
 * hands the call over; what is the same for every kind is done here: a disabled consumer, the instance's limits on
 * parked and blocked requests, the arrival time a long poll counts from, one deadline for closing, and the spans of
 * the messages handed out and settled ({@link ConsumerSpans}), under the OpenTelemetry context current on the
 * calling thread.
 *
 * <p>Thread-safe, without a lock shared by all groups. The {@code Proxy} owns it and {@link #close() closes} it
 * before the producer: parked requests are answered 503, acked offsets committed, groups left.
 */
public final class Consumers implements AutoCloseable {

    /** What leaving takes after the drain at most: commit retries during a rebalance, then closing the consumer. */
    private static final Duration LEAVE_TIMEOUT = Duration.ofSeconds(90);

    private final ConsumerConfig config;
    private final InstanceLimits limits;
    private final Clock clock;
    /** Answers parked requests at their deadlines; one thread for all groups of the cluster. */
    private final Deadlines deadlines;
    private final GroupKind classic;
    private final GroupKind share;
    private final ConsumerSpans spans;

    /** Kafka's group protocol ({@code membership: kafka}). */
    public static Membership.Factory kafkaMembership() {
        return KafkaMembership.FACTORY;
    }

    /**
     * @param memberships      how classic group members get partitions: {@link #kafkaMembership()}, or ZooKeeper's
     * @param guard            asked before this instance joins a classic group (a new member is made)
     * @param committedOffsets reads committed offsets as stored, negative ones included (kafka-clients reads a
     *                         committed -2, "start at the oldest", as no commit at all)
     * @param shareSetup       puts the proxy's settings on a share group at the broker before it is first used here
     */
    public Consumers(ConsumerConfig config, Map<String, Object> kafkaCommon, OffsetStore committedOffsets,
                     Membership.Factory memberships, GroupGuard guard, ShareGroupSetup shareSetup,
                     ConsumerMetrics metrics, InstanceLimits limits, Clock clock, DeadLetters deadLetters,
                     Tracing tracing) {
        this(config, ConsumerSettings.classicFactory(config, kafkaCommon), committedOffsets, memberships, guard,
                metrics, limits, clock, Deadlines.onThread("consume-deadlines", clock), StartGate.process(),
                ConsumerSettings.shareFactory(config, kafkaCommon), shareSetup, new DeadLettering(deadLetters),
                tracing);
    }

    /**
     * As the public constructor, with the consumers, the deadlines' timer, the start gate and the share consumers
     * given (tests).
     */
    Consumers(ConsumerConfig config, Function<String, Consumer<byte[], byte[]>> kafkaFactory,
              OffsetStore committedOffsets, Membership.Factory memberships, GroupGuard guard, ConsumerMetrics metrics,
              InstanceLimits limits, Clock clock, Deadlines deadlines, StartGate starts,
              Function<String, ShareConsumer<byte[], byte[]>> shareFactory, ShareGroupSetup shareSetup) {
        this(config, kafkaFactory, committedOffsets, memberships, guard, metrics, limits, clock, deadlines, starts,
                shareFactory, shareSetup, DeadLettering.NONE);
    }

    /** As above, with dead letters going to {@code letters} (tests). */
    Consumers(ConsumerConfig config, Function<String, Consumer<byte[], byte[]>> kafkaFactory,
              OffsetStore committedOffsets, Membership.Factory memberships, GroupGuard guard, ConsumerMetrics metrics,
              InstanceLimits limits, Clock clock, Deadlines deadlines, StartGate starts,
              Function<String, ShareConsumer<byte[], byte[]>> shareFactory, ShareGroupSetup shareSetup,
              DeadLettering letters) {
        this(config, kafkaFactory, committedOffsets, memberships, guard, metrics, limits, clock, deadlines, starts,
                shareFactory, shareSetup, letters, Tracing.off());
    }

    /** As above, with the spans of consumed messages made by {@code tracing} (tests). */
    Consumers(ConsumerConfig config, Function<String, Consumer<byte[], byte[]>> kafkaFactory,
              OffsetStore committedOffsets, Membership.Factory memberships, GroupGuard guard, ConsumerMetrics metrics,
              InstanceLimits limits, Clock clock, Deadlines deadlines, StartGate starts,
              Function<String, ShareConsumer<byte[], byte[]>> shareFactory, ShareGroupSetup shareSetup,
              DeadLettering letters, Tracing tracing) {
        this.config = config;
        this.spans = new ConsumerSpans(tracing);
        this.deadlines = deadlines;
        this.limits = limits;
        this.clock = clock;
        this.classic = new ClassicGroups(config, kafkaFactory, committedOffsets, memberships, guard, metrics, limits,
                clock, deadlines, starts, letters);
        this.share = new ShareGroups(config, shareFactory, shareSetup, metrics, limits, clock, deadlines, letters);
        metrics.settings(config.ackTimeout(), config.maxRetries());
    }

    /** The kind of {@code group} on this instance. */
    private GroupKind kind(String group) {
        return config.isShareGroup(group) ? share : classic;
    }

    /**
     * Parks a request for the next message of {@code topic} for {@code group}, for a caller that then waits on its own
     * thread ({@link PendingConsume#await()}, up to {@code long_polling_timeout} from now) and settles the message it
     * gets. An explicit ack is applied first, quietly: as in the original, it is dropped unless this instance returned
     * a message of that partition, so the proto-default ack of partition 0 offset 0 acks nothing by accident.
     *
     * @throws PixyException disabled, shutting down or too many requests (of this group and topic, or of this whole
     *                       instance), before anything is parked
     */
    public PendingConsume consumeBlocking(String group, String topic, AckMode ack) {
        return consumeAsync(group, topic, ack, Receiver.ANY, true, clock.instant());
    }

    /**
     * As {@link #consumeBlocking}, without blocking the caller: the request is parked (and served at once when a
     * message is ready) and the result completes later; a message is handed to it only while {@code receiver} can
     * take it. Blocks only where {@link #needsSetUp} says it may.
     *
     * @throws PixyException disabled, shutting down or too many requests, before anything is parked
     */
    public PendingConsume consumeAsync(String group, String topic, AckMode ack, Receiver receiver) {
        return consumeAsync(group, topic, ack, receiver, false, clock.instant());
    }

    /**
     * As {@link #consumeAsync(String, String, AckMode, Receiver)}, for a request that arrived at {@code arrival}
     * ({@link #now()} when the transport took it): its long poll counts from then, however long it waited for a
     * thread to run this call on.
     */
    public PendingConsume consumeAsync(String group, String topic, AckMode ack, Receiver receiver, Instant arrival) {
        return consumeAsync(group, topic, ack, receiver, false, arrival);
    }

    /** The consumers' clock: what a transport stamps on a consume request when it takes it, before any hand-off. */
    public Instant now() {
        return clock.instant();
    }

    /** As {@link #consumeAsync(String, String, AckMode, Receiver)}, for a receiver that can always take a message. */
    public PendingConsume consumeAsync(String group, String topic, AckMode ack) {
        return consumeAsync(group, topic, ack, Receiver.ANY, false, clock.instant());
    }

    /** @param blocking a thread will wait on the result ({@link #consume}): it also takes a blocked waiter's place */
    private PendingConsume consumeAsync(String group, String topic, AckMode ack, Receiver receiver,
                                        boolean blocking, Instant arrival) {
        if (config.disabled()) {
            throw PixyException.disabled();
        }
        GroupKind kind = kind(group);
        if (ack instanceof AckMode.Explicit e) {
            spans.ackQuietly(kind, group, topic, e.partition(), e.offset());
        }
        Context call = spans.call();
        InstanceLimits.Slot waiter = blocking ? limits.enterBlocked() : InstanceLimits.NO_SLOT;
        InstanceLimits.Slot slot;
        try {
            slot = limits.enterParked();
        } catch (RuntimeException e) {
            waiter.close();
            throw e;
        }
        try {
            return kind.consume(group, topic, arrival, ack instanceof AckMode.Auto, receiver)
                    .whenComplete((m, error) -> {
                        slot.close();
                        waiter.close();
                        spans.received(call, group, m);
                    });
        } catch (RuntimeException e) {
            slot.close();
            waiter.close();
            throw e;
        }
    }

    /**
     * Opens a stream of {@code group}'s messages of {@code topics}: served beside the unary requests, under the same
     * rules, while it has credits ({@link ConsumerStream#credit}); at most {@code maxCredits} unspent at once. Blocks
     * only where {@link #needsSetUp} says it may.
     *
     * @throws PixyException disabled, or shutting down
     */
    public ConsumerStream openStream(String group, List<String> topics, long maxCredits, ConsumerStream.Sink sink) {
        if (config.disabled()) {
            throw PixyException.disabled();
        }
        GroupKind kind = kind(group);
        return spans.stream(kind, group, sink, traced -> kind.openStream(group, topics, maxCredits, traced));
    }

    /**
     * True when a consume request for {@code group} and {@code topic} would set something up before it is parked: a
     * new classic member (its state, meters and owning thread, milliseconds of work; made through the
     * mixed-membership guard, which may ask ZooKeeper), or a share group's first request here for the topic, which
     * sets the group up at the broker. A caller on an event loop hands such a request to a thread first, stamped with
     * its arrival ({@link #now()}), so that the loop goes on reading the calls behind it.
     */
    public boolean needsSetUp(String group, String topic) {
        return kind(group).needsSetUp(group, topic);
    }

    /**
     * Acks a message this instance returned (REST {@code /acks}, gRPC {@code Ack}).
     *
     * @throws PixyException {@code ACK_FAILED} with the original's texts when this instance never returned a message
     *                       of that partition, or no longer holds it
     */
    public void ack(String group, String topic, int partition, long offset) {
        try {
            settle(group, topic, partition, offset, Settlement.ACK).join();
        } catch (java.util.concurrent.CompletionException e) {
            throw PendingConsume.failure(e);
        }
    }

    /**
     * Settles a message this instance returned: an ack, a reject or a renewal ({@link Settlement}). Completes at once
     * except in share groups, where it completes when the broker took it, and for a reject when a dead-letter topic is
     * set, once the dead letter is written and the message settled; it fails with a {@link PixyException} as
     * {@link #ack} throws, and for a reject also when the dead letter was not written. Never blocks.
     */
    public CompletableFuture<Void> settle(String group, String topic, int partition, long offset, Settlement how) {
        GroupKind kind = kind(group);
        return spans.settle(kind, group, topic, partition, offset, how,
                () -> kind.settle(group, topic, partition, offset, how));
    }

    /** Consume requests parked on this instance right now, over all groups and topics. */
    public int parkedRequests() {
        return classic.parkedRequests() + share.parkedRequests();
    }

    /**
     * A copy of what this instance holds for its groups ({@link InFlight}), by group name, each copied under its own
     * lock; {@code only} names the one group wanted (null: all). Rows past {@code rows}' limit are left out.
     */
    public List<InFlight.Group> inFlight(String only, InFlight.Rows rows) {
        List<InFlight.Group> groups = new ArrayList<>(classic.inFlight(only, rows));
        groups.addAll(share.inFlight(only, rows));
        groups.sort(java.util.Comparator.comparing(InFlight.Group::group));
        return groups;
    }

    /** Answers parked requests 503, commits, leaves every group; waits for that to finish. */
    @Override
    public void close() {
        classic.beginClose();
        share.beginClose();
        // every group drains and leaves in parallel: one deadline for all of them
        long deadline = System.nanoTime() + config.shutdownTimeout().plus(LEAVE_TIMEOUT).toNanos();
        share.awaitClosed(deadline);
        classic.awaitClosed(deadline);
        // timers already set still run: a request parked in the meantime is still answered at its deadline
        deadlines.shutdown();
    }
}
