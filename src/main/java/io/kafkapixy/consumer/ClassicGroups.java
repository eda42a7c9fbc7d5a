package io.kafkapixy.consumer;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.offset.store.OffsetStore;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * The classic consumer groups of one cluster on this instance: a {@link GroupConsumer} per group with live requests
 * here, created by the first request and gone when its last topic expires. The group's offsets, acks and
 * redeliveries are this instance's; membership is Kafka's or ZooKeeper's ({@link Membership}).
 *
 * <p>Thread-safe, without a lock shared by all groups.
 */
final class ClassicGroups implements GroupKind, MessageStream.Owner {

    private static final System.Logger LOG = System.getLogger(ClassicGroups.class.getName());

    private final ConsumerConfig config;
    /** Makes the {@code KafkaConsumer} of a new member of the named group. */
    private final Function<String, Consumer<byte[], byte[]>> kafkaFactory;
    private final OffsetStore committedOffsets;
    private final Membership.Factory memberships;
    private final Clock clock;
    private final ConsumerMetrics metrics;
    private final InstanceLimits limits;
    private final GroupGuard guard;
    private final Deadlines deadlines;
    private final StartGate starts;
    private final DeadLettering letters;
    /** The member of each group that takes new requests. */
    private final Map<String, GroupConsumer> accepting = new ConcurrentHashMap<>();
    /** Per group, every member not done yet, including ones leaving: they still hold partitions and take acks. */
    private final Map<String, Members> live = new ConcurrentHashMap<>();
    /** The members told to close by {@link #beginClose}. */
    private final List<GroupConsumer> closed = new ArrayList<>();
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

    ClassicGroups(ConsumerConfig config, Function<String, Consumer<byte[], byte[]>> kafkaFactory,
                  OffsetStore committedOffsets, Membership.Factory memberships, GroupGuard guard,
                  ConsumerMetrics metrics, InstanceLimits limits, Clock clock, Deadlines deadlines, StartGate starts,
                  DeadLettering letters) {
        this.config = config;
        this.kafkaFactory = kafkaFactory;
        this.committedOffsets = committedOffsets;
        this.memberships = memberships;
        this.guard = guard;
        this.metrics = metrics;
        this.limits = limits;
        this.clock = clock;
        this.deadlines = deadlines;
        this.starts = starts;
        this.letters = letters;
    }

    @Override
    public PendingConsume consume(String group, String topic, Instant arrival, boolean autoAck, Receiver receiver) {
        while (true) {
            PendingConsume p = member(group).consume(topic, arrival, autoAck, receiver, deadlines);
            if (p == null) {
                // that member was leaving: the next turn makes a new one
                continue;
            }
            return p.whenComplete((m, error) -> {
                if (m != null) {
                    markServed(group, topic, m.partition());
                }
            });
        }
    }

    @Override
    public ConsumerStream openStream(String group, List<String> topics, long maxCredits, ConsumerStream.Sink sink) {
        MessageStream stream = new MessageStream(this, group, topics, maxCredits, sink);
        while (!member(group).attach(stream)) {
            // that member was leaving: the next call makes a new one
        }
        return stream;
    }

    @Override
    public List<org.apache.kafka.common.header.Header> heldHeaders(String group, String topic, int partition,
                                                                long offset) {
        Members members = live.get(group);
        if (members != null) {
            for (GroupConsumer g : members.consumers) {
                List<org.apache.kafka.common.header.Header> headers = g.heldHeaders(topic, partition, offset);
                if (headers != null) {
                    return headers;
                }
            }
        }
        return null;
    }

    @Override
    public void ackQuietly(String group, String topic, int partition, long offset) {
        if (served(group, topic, partition)) {
            ackHeld(group, topic, partition, offset);
        }
    }

    @Override
    public CompletableFuture<Void> settle(String group, String topic, int partition, long offset, Settlement how) {
        if (!served(group, topic, partition)) {
            return CompletableFuture.failedFuture(PixyException.acksChannelMissing(group, topic, partition));
        }
        if (how == Settlement.REJECT) {
            // a partition this member gave up may be held by another member here that is still leaving
            Members members = live.get(group);
            if (members != null) {
                for (GroupConsumer g : members.consumers) {
                    CompletableFuture<Void> settled = g.reject(topic, partition, offset);
                    if (settled != null) {
                        return settled;
                    }
                }
            }
            return CompletableFuture.failedFuture(PixyException.ackTimeout());
        }
        boolean held = how == Settlement.ACK ? ackHeld(group, topic, partition, offset)
                : anyMember(group, g -> g.renew(topic, partition, offset));
        return held ? CompletableFuture.completedFuture(null)
                : CompletableFuture.failedFuture(PixyException.ackTimeout());
    }

    private boolean anyMember(String group, java.util.function.Predicate<GroupConsumer> action) {
        Members members = live.get(group);
        if (members == null) {
            return false;
        }
        for (GroupConsumer g : members.consumers) {
            if (action.test(g)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void markServed(String group, String topic, int partition) {
        Members members = live.get(group);
        if (members != null) {
            members.served.add(new Served(topic, partition));
        }
    }

    private boolean served(String group, String topic, int partition) {
        Members members = live.get(group);
        return members != null && members.served.contains(new Served(topic, partition));
    }

    @Override
    public boolean ackHeld(String group, String topic, int partition, long offset) {
        return anyMember(group, g -> g.ack(topic, partition, offset));
    }

    /**
     * A new member, or a topic new to the member: the member's state and owning thread and the topic's meters are
     * made on the caller's thread (milliseconds, more in a cold process), a new member after the guard, which may ask
     * ZooKeeper; other requests of the group wait for the meters.
     */
    @Override
    public boolean needsSetUp(String group, String topic) {
        GroupConsumer g = openMember(group);
        return g == null || !g.hasTopic(topic);
    }

    /** The member of the group that takes requests now, or null when a new one must be made. */
    private GroupConsumer openMember(String group) {
        GroupConsumer g = accepting.get(group);
        return g != null && !g.isClosed() ? g : null;
    }

    @Override
    public int parkedRequests() {
        int n = 0;
        for (GroupConsumer g : accepting.values()) {
            n += g.parkedRequests();
        }
        return n;
    }

    @Override
    public List<InFlight.Group> inFlight(String only, InFlight.Rows rows) {
        List<InFlight.Group> groups = new ArrayList<>();
        new java.util.TreeMap<>(live).forEach((group, members) -> {
            if (only == null || only.equals(group)) {
                members.consumers.forEach(g -> groups.add(g.view(rows)));
            }
        });
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
            InstanceLimits.GroupSlot slot = limits.enterGroup();
            GroupConsumer[] created = new GroupConsumer[1];
            created[0] = new GroupConsumer(name, config, clock, committedOffsets, () -> kafkaFactory.apply(name),
                    memberships, metrics, memberships.revokeWaitLimit(), starts, letters, () -> {
                        forget(name, created[0]);
                        slot.close();
                    });
            slot.retirableBy(created[0].retirement());
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

    /** Every member drains (parked requests answered 503), commits what was acked and leaves, in parallel. */
    @Override
    public void beginClose() {
        closing = true;
        live.values().forEach(m -> closed.addAll(m.consumers));
        closed.forEach(GroupConsumer::shutdown);
    }

    @Override
    public void awaitClosed(long deadlineNanos) {
        for (GroupConsumer g : closed) {
            try {
                if (!g.awaitDone(Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime())))) {
                    LOG.log(Level.WARNING, "A group consumer did not stop in time");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
