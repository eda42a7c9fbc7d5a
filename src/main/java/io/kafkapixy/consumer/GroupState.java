package io.kafkapixy.consumer;

import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import org.apache.kafka.common.TopicPartition;

/**
 * What one group member holds on this instance, under one lock: its topics with their parked requests, the
 * partitions it is assigned with their fetched records, offers and acks, and whether it still takes requests.
 *
 * <p>Its jobs are apart, all under this one lock: this class takes parked requests, their acks and the member's life
 * (open, shutting down, closed); {@link StreamDelivery} the streams; {@link FetchBuffer} what the owning thread
 * fetched, with pause and refill; {@link CommitBook} what to commit and the waits for acks before a partition goes.
 *
 * <p><b>The contract of a membership mode</b> (a {@link Membership}, driven by {@link MemberLoop} on the member's one
 * owning thread): it is told which topics the member wants ({@link #wantedTopics()}), and it answers, on that thread
 * only, with partitions that come ({@link Handover}: {@link FetchBuffer#add}, after their committed offsets were read)
 * and partitions that go ({@link CommitBook#awaitAcks}, then {@link CommitBook#takeFinal} and a commit of what that
 * returns, before another member may take them). Records go in through {@link FetchBuffer#absorb} on the same thread;
 * nothing a mode does touches requests or streams, which see only partitions offered or gone.
 *
 * <p>Request threads call {@link #park}, {@link #giveUp}, {@link #ack} and {@link #shutdown}; no method blocks on
 * Kafka; only {@link CommitBook#awaitAcks} and {@link FetchBuffer#awaitRefill} wait, and acks are taken meanwhile.
 */
final class GroupState implements Settler {

    final String group;
    final ConsumerConfig config;
    final Clock clock;
    final ConsumerMetrics metrics;
    final ReentrantLock lock = new ReentrantLock();
    /** Changed under the lock; concurrent only so that {@link #park} can ask whether a topic is new without it. */
    final Map<String, TopicState> topics = new ConcurrentHashMap<>();
    // guarded by lock
    final Map<TopicPartition, PartitionState> assigned = new HashMap<>();
    private Instant shutdownDeadline;
    /** Written under the lock; read without it by {@link #isClosed()}, a hint that {@link #park} confirms. */
    private volatile boolean closed;
    /** Consulted under the lock before every hand-out; see {@link ServingGate}. */
    private volatile ServingGate gate = ServingGate.ALWAYS_OPEN;

    final FetchBuffer fetches;
    final CommitBook commits;
    final StreamDelivery streams;
    final DeadLetterDesk letters;

    GroupState(String group, ConsumerConfig config, Clock clock, ConsumerMetrics metrics) {
        this(group, config, clock, metrics, DeadLettering.NONE);
    }

    GroupState(String group, ConsumerConfig config, Clock clock, ConsumerMetrics metrics, DeadLettering letters) {
        this.group = group;
        this.config = config;
        this.clock = clock;
        this.metrics = metrics;
        this.fetches = new FetchBuffer(this);
        this.commits = new CommitBook(this);
        this.streams = new StreamDelivery(this);
        this.letters = new DeadLetterDesk(this, letters);
    }

    String group() {
        return group;
    }

    /** The mode label of the group's meters. */
    String mode() {
        return modeOf(config);
    }

    /** The mode label of a classic group under {@code config}: {@code zookeeper} or {@code kafka}. */
    static String modeOf(ConsumerConfig config) {
        return config.membership() == ConsumerConfig.Membership.ZOOKEEPER ? "zookeeper" : "kafka";
    }

    <T> T locked(Supplier<T> action) {
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }

    void locked(Runnable action) {
        lock.lock();
        try {
            action.run();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Parks a request for a message of {@code topic}, due at {@code arrival} + {@code long_polling_timeout}, and
     * serves it at once if a message is ready. Returns null when this member is leaving (the caller gets a new one).
     *
     * With {@code autoAck} the message counts as acked once its transport says it was delivered ({@link #ack}); it is
     * handed over only while {@code receiver} can take it.
     *
     * @throws PixyException too many requests, or shutting down
     */
    WaitingRequest park(String topic, Instant arrival, boolean autoAck, Receiver receiver) {
        // A topic new here gets its meters before the lock: registering them takes long enough (more in a cold
        // process) to hold up everyone waiting for the group's lock, gRPC's event loop among them.
        ConsumerMetrics.Topic meters = topics.containsKey(topic) ? null : metrics.topic(group, topic, mode());
        boolean[] spare = {meters != null};
        try {
            return locked(() -> {
                if (leaving()) {
                    return null;
                }
                TopicState t = topics.get(topic);
                if (t == null) {
                    t = subscribe(topic, arrival, meters != null ? meters : metrics.topic(group, topic, mode()));
                    spare[0] = false;
                }
                return park(t, arrival, autoAck, receiver);
            });
        } finally {
            if (spare[0]) {
                // another request made the topic's state meanwhile, with meters of its own
                meters.remove();
            }
        }
    }

    /** Under the lock. */
    private WaitingRequest park(TopicState t, Instant arrival, boolean autoAck, Receiver receiver) {
        WaitingRequest r;
        try {
            r = t.park(arrival, arrival.plus(config.longPollingTimeout()), config.channelBufferSize(), autoAck,
                    receiver);
        } catch (PixyException e) {
            t.metrics.request(ConsumerMetrics.Outcome.TOO_MANY_REQUESTS);
            throw e;
        }
        dispatch(t, clock.instant());
        fetches.refillIfWanted();
        return r;
    }

    /**
     * Under the lock: true when this member takes nothing new any more because it is leaving (the caller makes a new
     * one).
     *
     * @throws PixyException shutting down: no member takes anything new
     */
    boolean leaving() {
        if (closed && shutdownDeadline != null) {
            throw PixyException.shuttingDown();
        }
        return closed;
    }

    /** Under the lock: the topic's state, made (and the owning thread woken to subscribe to it) when it is new here. */
    TopicState subscribed(String topic, Instant now) {
        TopicState t = topics.get(topic);
        return t != null ? t : subscribe(topic, now, metrics.topic(group, topic, mode()));
    }

    /** Under the lock: makes the state of a topic new here, and wakes the owning thread to subscribe to it. */
    private TopicState subscribe(String topic, Instant now, ConsumerMetrics.Topic meters) {
        TopicState t = new TopicState(topic, now, meters);
        topics.put(topic, t);
        // a topic to subscribe to: the owning thread should not sit out its wait
        fetches.wakeOwner();
        return t;
    }

    /** Under the lock: serves the topic's parked requests and streams from its partitions while the gate is open. */
    void dispatch(TopicState t, Instant now) {
        t.dispatch(now, config.maxPendingMessages(), config.maxRetries(), gate);
    }

    /** Under the lock: serves every topic. */
    void dispatchAll(Instant now) {
        topics.values().forEach(t -> dispatch(t, now));
    }

    /** From now on messages are handed out only while {@code gate} is open. */
    void guardWith(ServingGate gate) {
        this.gate = gate;
    }

    /** Whether messages may be handed out (and offsets committed) now. */
    boolean gateOpen() {
        return gate.open();
    }

    /** The gate may have opened: serve what waits. */
    void gateOpened() {
        locked(() -> dispatchAll(clock.instant()));
    }

    /** A request stops waiting: unless a message was handed over at the last moment, it is answered {@code answer}. */
    @Override
    public void giveUp(String topic, WaitingRequest r, PixyException answer) {
        locked(() -> {
            TopicState t = topics.get(topic);
            if (!r.result.isDone() && t != null && t.unpark(r)) {
                r.result.completeExceptionally(answer);
            }
        });
    }

    /**
     * A message handed to a request never reached its client (the call had ended, the answer could not be written):
     * it is offered again at once as the same delivery, neither acked nor counted as a redelivery. False when it was
     * acked or handed out again since, or its partition is no longer here (then its new holder offers it).
     */
    @Override
    public boolean returnOffer(ConsumedMessage m) {
        return locked(() -> {
            PartitionState p = assigned.get(new TopicPartition(m.topic(), m.partition()));
            Instant now = clock.instant();
            if (p == null || !p.undoOffer(m.offset(), m.attempt(), now)) {
                return false;
            }
            TopicState t = topics.get(m.topic());
            if (t != null) {
                t.metrics.returned();
                dispatch(t, now);
            }
            fetches.refillIfWanted();
            return true;
        });
    }

    /** Acks a message of a partition held here, also while closing; false when the partition is not held here. */
    @Override
    public boolean ack(String topic, int partition, long offset) {
        return locked(() -> {
            PartitionState p = assigned.get(new TopicPartition(topic, partition));
            if (p == null) {
                return false;
            }
            if (p.lettering.holds(offset)) {
                // given up on: its dead letter settles it
                return false;
            }
            boolean changed = p.ack(offset);
            commits.ackTaken();
            streams.releaseEverywhere(p.tp, offset);
            TopicState t = topics.get(topic);
            if (t != null) {
                if (changed) {
                    t.metrics.acked();
                }
                if (t.hasTakers()) {
                    dispatch(t, clock.instant());
                }
            }
            fetches.refillIfWanted();
            return true;
        });
    }

    /**
     * A client holding a message restarts its {@code ack_timeout} from now; false when it is not out with a client
     * here (acked, waiting to be offered again, given up, or its partition gone).
     */
    boolean renew(String topic, int partition, long offset) {
        return locked(() -> {
            PartitionState p = assigned.get(new TopicPartition(topic, partition));
            if (p == null || !p.renew(offset, clock.instant().plus(config.ackTimeout()))) {
                return false;
            }
            p.metrics().renewed();
            return true;
        });
    }

    /**
     * Takes no more requests and answers the parked ones {@code service is shutting down}; acks are still taken until
     * the partitions are gone, and waits for acks end by {@code consumer.shutdown_timeout} from now.
     */
    void shutdown() {
        locked(() -> {
            closed = true;
            if (shutdownDeadline == null) {
                shutdownDeadline = clock.instant().plus(config.shutdownTimeout());
            }
            topics.values().forEach(t -> t.failAll(PixyException.shuttingDown()));
            streams.drainAll();
            commits.ackTaken();
            fetches.wakeOwner();
        });
    }

    boolean isShuttingDown() {
        return locked(() -> shutdownDeadline != null);
    }

    /** Under the lock: when waits for acks must end because of a shutdown, or null. */
    Instant shutdownDeadline() {
        return shutdownDeadline;
    }

    /** True once this member takes no more requests (it is leaving the group or has left). */
    boolean isClosed() {
        return closed;
    }

    int parkedRequests() {
        return locked(() -> topics.values().stream().mapToInt(TopicState::waitingCount).sum());
    }

    /**
     * Topics with live requests. Expired topics with nothing left are dropped; when no topic is left the member is
     * closed to new requests (in the same step, so no request can slip in).
     */
    Set<String> wantedTopics() {
        return locked(() -> {
            if (shutdownDeadline != null) {
                closed = true;
                return Set.of();
            }
            Set<String> wanted = new TreeSet<>();
            topics.values().removeIf(t -> {
                boolean gone = t.expired() && !t.hasPartitions() && !t.hasTakers();
                if (gone) {
                    t.metrics.remove();
                }
                return gone;
            });
            for (TopicState t : topics.values()) {
                if (!t.expired()) {
                    wanted.add(t.topic);
                }
            }
            if (wanted.isEmpty()) {
                closed = true;
            }
            return wanted;
        });
    }

    /** A topic this instance may not read: its requests fail and it leaves the subscription until asked again. */
    void refuseTopics(Set<String> unauthorized, String reason) {
        locked(() -> unauthorized.stream().map(topics::get).filter(t -> t != null).forEach(t -> {
            t.failAll(new PixyException(ErrorKind.INTERNAL, reason));
            List.copyOf(t.streams()).forEach(s -> streams.detach(s, new PixyException(ErrorKind.INTERNAL, reason)));
            t.expire();
        }));
    }

    /** The member has left: parked requests are answered (503 when shutting down, else {@code answer}). */
    void close(PixyException answer) {
        locked(() -> {
            closed = true;
            PixyException a = shutdownDeadline != null ? PixyException.shuttingDown() : answer;
            streams.all().forEach(s -> streams.detach(s, a));
            topics.values().forEach(t -> {
                t.failAll(a);
                t.metrics.remove();
            });
            assigned.clear();
        });
    }

    /** Closed to new requests while the member commits and leaves; acks are still taken. */
    void stopTakingRequests() {
        locked(() -> {
            closed = true;
        });
    }

    /** A copy for {@link InFlight}, taken under the lock; nothing else is done while it is held. */
    InFlight.Group view(InFlight.Rows rows) {
        return locked(() -> {
            Instant now = clock.instant();
            String how = shutdownDeadline != null ? "shutting_down" : closed ? "leaving" : "serving";
            List<InFlight.Topic> views = new java.util.ArrayList<>();
            new TreeSet<>(topics.keySet()).forEach(name -> views.add(topics.get(name).view(now, rows)));
            List<InFlight.Stream> streamViews = new java.util.ArrayList<>();
            for (MessageStream s : streams.all()) {
                if (rows.take()) {
                    streamViews.add(s.view());
                }
            }
            return new InFlight.Group(group, mode(), how, List.copyOf(views), List.copyOf(streamViews));
        });
    }
}
