package io.kafkapixy.consumer;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.kafkapixy.offset.store.OffsetStore;
import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ShareConsumer;

/**
 * The consumer side of one cluster: a {@link GroupConsumer} per group with live requests on this instance, created by
 * the first request and gone when its last topic expires.
 *
 * <p>Thread-safe, without a lock shared by all groups. The {@code Proxy} owns it and {@link #close() closes} it
 * before the producer: parked requests are answered 503, acked offsets committed, groups left.
 */
public final class Consumers implements AutoCloseable, MessageStream.Owner {

    private static final System.Logger LOG = System.getLogger(Consumers.class.getName());
    /** What leaving takes after the drain at most: commit retries during a rebalance, then closing the consumer. */
    private static final Duration LEAVE_TIMEOUT = Duration.ofSeconds(90);

    private final ConsumerConfig config;
    /** Makes the {@code KafkaConsumer} of a new member of the named group. */
    private final Function<String, Consumer<byte[], byte[]>> kafkaFactory;
    private final OffsetStore committedOffsets;
    private final Membership.Factory memberships;
    private final Clock clock;
    private final ConsumerMetrics metrics;
    private final InstanceLimits limits;
    private final GroupGuard guard;
    /** Answers parked requests at their deadlines; one thread for all groups of the cluster. */
    private final Deadlines deadlines;
    private final StartGate starts;
    /** The groups that are share groups here ({@link ConsumerConfig#isShareGroup}). */
    private final ShareGroups shares;
    /** The member of each group that takes new requests. */
    private final Map<String, GroupConsumer> accepting = new ConcurrentHashMap<>();
    /** Per group, every member not done yet, including ones leaving: they still hold partitions and take acks. */
    private final Map<String, Members> live = new ConcurrentHashMap<>();
    private volatile boolean closing;

    /**
     * A group's members on this instance, and the partitions this instance returned a message from while it had any:
     * the only ones acks are taken for (as in the original, a consume request's ack for another is ignored and an
     * ack request gets 500 {@code acks channel missing ...}). Both go with the group's last member, so they are
     * bounded by the live groups' partitions (the original keeps every partition it ever served).
     */
    private record Members(Set<GroupConsumer> consumers, Set<Served> served) {

        Members() {
            this(ConcurrentHashMap.newKeySet(), ConcurrentHashMap.newKeySet());
        }
    }

    private record Served(String topic, int partition) {
    }

    /** Kafka's group protocol ({@code membership: kafka}). */
    public static Membership.Factory kafkaMembership() {
        return KafkaMembership.FACTORY;
    }

    /**
     * @param memberships      how group members get partitions: {@link #kafkaMembership()}, or ZooKeeper's
     * @param guard            asked before this instance joins a group (a new member is made)
     * @param committedOffsets reads committed offsets as stored, negative ones included (kafka-clients reads a
     *                         committed -2, "start at the oldest", as no commit at all)
     * @param shareSetup       puts the proxy's settings on a share group at the broker before it is first used here
     */
    public Consumers(ConsumerConfig config, Map<String, Object> kafkaCommon, OffsetStore committedOffsets,
                     Membership.Factory memberships, GroupGuard guard, ShareGroupSetup shareSetup,
                     ConsumerMetrics metrics, InstanceLimits limits, Clock clock) {
        this(config, ConsumerSettings.classicFactory(config, kafkaCommon), committedOffsets, memberships, guard, metrics, limits, clock,
                Deadlines.onThread("consume-deadlines", clock), StartGate.process(),
                ConsumerSettings.shareFactory(config, kafkaCommon), shareSetup);
    }

    /**
     * As the public constructor, with the consumers, the deadlines' timer, the start gate and the share consumers
     * given (tests).
     */
    Consumers(ConsumerConfig config, Function<String, Consumer<byte[], byte[]>> kafkaFactory,
              OffsetStore committedOffsets, Membership.Factory memberships, GroupGuard guard, ConsumerMetrics metrics,
              InstanceLimits limits, Clock clock, Deadlines deadlines, StartGate starts,
              Function<String, ShareConsumer<byte[], byte[]>> shareFactory, ShareGroupSetup shareSetup) {
        this.config = config;
        this.guard = guard;
        this.deadlines = deadlines;
        this.starts = starts;
        this.limits = limits;
        this.metrics = metrics;
        this.memberships = memberships;
        this.kafkaFactory = kafkaFactory;
        this.committedOffsets = committedOffsets;
        this.clock = clock;
        this.shares = new ShareGroups(config, shareFactory, shareSetup, metrics, limits, clock, deadlines);
        metrics.settings(config.ackTimeout(), config.maxRetries());
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
        return consumeAsync(group, topic, ack, Receiver.ANY, true);
    }

    /**
     * As {@link #consumeBlocking}, without blocking the caller: the request is parked (and served at once when a
     * message is ready) and the result completes later; a message is handed to it only while {@code receiver} can
     * take it. Blocks only to join a group through a {@link GroupGuard} that may ask ZooKeeper ({@link #joinMayBlock}
     * says whether that can happen).
     *
     * @throws PixyException disabled, shutting down or too many requests, before anything is parked
     */
    public PendingConsume consumeAsync(String group, String topic, AckMode ack, Receiver receiver) {
        return consumeAsync(group, topic, ack, receiver, false);
    }

    /** As {@link #consumeAsync(String, String, AckMode, Receiver)}, for a receiver that can always take a message. */
    public PendingConsume consumeAsync(String group, String topic, AckMode ack) {
        return consumeAsync(group, topic, ack, Receiver.ANY, false);
    }

    /** @param blocking a thread will wait on the result ({@link #consume}): it also takes a blocked waiter's place */
    private PendingConsume consumeAsync(String group, String topic, AckMode ack, Receiver receiver,
                                        boolean blocking) {
        if (config.disabled()) {
            throw PixyException.disabled();
        }
        var arrival = clock.instant();
        boolean share = config.isShareGroup(group);
        if (ack instanceof AckMode.Explicit e) {
            if (share) {
                shares.ackQuietly(group, topic, e.partition(), e.offset());
            } else if (served(group, topic, e.partition())) {
                ackHeld(group, topic, e.partition(), e.offset());
            }
        }
        InstanceLimits.Slot waiter = blocking ? limits.enterBlocked() : InstanceLimits.NO_SLOT;
        InstanceLimits.Slot slot;
        try {
            slot = limits.enterParked();
        } catch (RuntimeException e) {
            waiter.close();
            throw e;
        }
        try {
            if (share) {
                return shares.consume(group, topic, arrival, ack instanceof AckMode.Auto, receiver)
                        .whenComplete((m, error) -> {
                            slot.close();
                            waiter.close();
                        });
            }
            while (true) {
                GroupConsumer g = member(group);
                PendingConsume p = g.consume(topic, arrival, ack instanceof AckMode.Auto, receiver, deadlines);
                if (p == null) {
                    continue;
                }
                return p.whenComplete((m, error) -> {
                    slot.close();
                    waiter.close();
                    Members members = m == null ? null : live.get(group);
                    if (members != null) {
                        members.served.add(new Served(topic, m.partition()));
                    }
                });
            }
        } catch (RuntimeException e) {
            slot.close();
            waiter.close();
            throw e;
        }
    }

    /**
     * Opens a stream of {@code group}'s messages of {@code topics}: served beside the unary requests by the same
     * member, under the same offsets and rules, while it has credits ({@link MessageStream#credit}); at most
     * {@code maxCredits} unspent at once. Blocks only to join a group through a guard, as {@link #consumeAsync}.
     *
     * @throws PixyException disabled, or shutting down
     */
    public ConsumerStream openStream(String group, List<String> topics, long maxCredits, ConsumerStream.Sink sink) {
        if (config.disabled()) {
            throw PixyException.disabled();
        }
        if (config.isShareGroup(group)) {
            return shares.openStream(group, topics, maxCredits, sink);
        }
        MessageStream stream = new MessageStream(this, group, topics, maxCredits, sink);
        while (!member(group).attach(stream)) {
            // that member was leaving: the next call makes a new one
        }
        return stream;
    }

    @Override
    public void rejected(String group, String topic) {
        metrics.rejected(group, topic, GroupState.modeOf(config));
    }

    @Override
    public void markServed(String group, String topic, int partition) {
        Members members = live.get(group);
        if (members != null) {
            members.served.add(new Served(topic, partition));
        }
    }

    /**
     * True when a consume request for {@code group} and {@code topic} may wait before it is parked: a new member made
     * here through a guard that may ask ZooKeeper (the mixed-membership guard), or a share group's first request here
     * for the topic, which sets the group up at the broker. A caller that must not block hands such a request to a
     * thread first.
     */
    public boolean joinMayBlock(String group, String topic) {
        if (config.isShareGroup(group)) {
            return shares.prepareMayBlock(group, topic);
        }
        return guard != GroupGuard.NONE && openMember(group) == null;
    }

    /** The member of the group that takes requests now, or null when a new one must be made. */
    private GroupConsumer openMember(String group) {
        GroupConsumer g = accepting.get(group);
        return g != null && !g.isClosed() ? g : null;
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
     * Settles a message this instance returned: an ack, or a reject ({@link Settlement}). Completes at once except in
     * share groups, where it completes when the broker took it; it fails with a {@link PixyException} as
     * {@link #ack} throws. Never blocks.
     */
    public CompletableFuture<Void> settle(String group, String topic, int partition, long offset, Settlement how) {
        if (config.isShareGroup(group)) {
            return shares.settle(group, topic, partition, offset,
                    how == Settlement.ACK ? AcknowledgeType.ACCEPT : AcknowledgeType.REJECT);
        }
        try {
            ackClassic(group, topic, partition, offset);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (how == Settlement.REJECT) {
            metrics.rejected(group, topic, GroupState.modeOf(config));
        }
        return CompletableFuture.completedFuture(null);
    }

    private void ackClassic(String group, String topic, int partition, long offset) {
        if (!served(group, topic, partition)) {
            throw new PixyException(ErrorKind.ACK_FAILED,
                    "acks channel missing for {" + group + " " + topic + " " + partition + "}");
        }
        if (!ackHeld(group, topic, partition, offset)) {
            throw new PixyException(ErrorKind.ACK_FAILED, "ack timeout");
        }
    }

    private boolean served(String group, String topic, int partition) {
        Members members = live.get(group);
        return members != null && members.served.contains(new Served(topic, partition));
    }

    @Override
    public boolean ackHeld(String group, String topic, int partition, long offset) {
        Members members = live.get(group);
        if (members == null) {
            return false;
        }
        for (GroupConsumer g : members.consumers) {
            if (g.ack(topic, partition, offset)) {
                return true;
            }
        }
        return false;
    }

    /** Consume requests parked on this instance right now, over all groups and topics. */
    public int parkedRequests() {
        int n = 0;
        for (GroupConsumer g : accepting.values()) {
            n += g.parkedRequests();
        }
        return n + shares.parkedRequests();
    }

    /**
     * A copy of what this instance holds for its groups ({@link InFlight}), by group name, each copied under its own
     * lock; {@code only} names the one group wanted (null: all). Rows past {@code rows}' limit are left out.
     */
    public List<InFlight.Group> inFlight(String only, InFlight.Rows rows) {
        List<InFlight.Group> groups = new ArrayList<>();
        new java.util.TreeMap<>(live).forEach((group, members) -> {
            if (only == null || only.equals(group)) {
                members.consumers.forEach(g -> groups.add(g.view(rows)));
            }
        });
        groups.addAll(shares.view(only, rows));
        groups.sort(java.util.Comparator.comparing(InFlight.Group::group));
        return groups;
    }

    private GroupConsumer member(String group) {
        if (closing) {
            throw PixyException.shuttingDown();
        }
        GroupConsumer g = openMember(group);
        if (g != null) {
            return g;
        }
        guard.check(group);
        return accepting.compute(group, (name, current) -> {
            if (current != null && !current.isClosed()) {
                return current;
            }
            InstanceLimits.Slot slot = limits.enterGroup();
            GroupConsumer[] created = new GroupConsumer[1];
            created[0] = new GroupConsumer(name, config, clock, committedOffsets, () -> kafkaFactory.apply(name),
                    memberships, metrics, memberships.revokeWaitLimit(), starts, () -> {
                        forget(name, created[0]);
                        slot.close();
                    });
            live.computeIfAbsent(name, k -> new Members()).consumers.add(created[0]);
            return created[0];
        });
    }

    private void forget(String group, GroupConsumer g) {
        accepting.remove(group, g);
        boolean[] gone = new boolean[1];
        live.computeIfPresent(group, (name, members) -> {
            members.consumers.remove(g);
            gone[0] = members.consumers.isEmpty();
            return gone[0] ? null : members;
        });
        if (gone[0]) {
            metrics.groupGone(group);
        }
    }

    /** Answers parked requests 503, commits, leaves every group; waits for that to finish. */
    @Override
    public void close() {
        closing = true;
        List<GroupConsumer> members = new ArrayList<>();
        live.values().forEach(m -> members.addAll(m.consumers));
        members.forEach(GroupConsumer::shutdown);
        // The members drain and leave in parallel: one deadline for all of them.
        Duration limit = config.shutdownTimeout().plus(LEAVE_TIMEOUT);
        long deadline = System.nanoTime() + limit.toNanos();
        shares.close(limit);
        for (GroupConsumer g : members) {
            try {
                if (!g.awaitDone(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                    LOG.log(Level.WARNING, "A group consumer did not stop within {0}", limit);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        // timers already set still run: a request parked in the meantime is still answered at its deadline
        deadlines.shutdown();
    }
}
