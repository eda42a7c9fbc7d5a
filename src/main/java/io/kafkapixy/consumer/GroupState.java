package io.kafkapixy.consumer;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What one group member holds on this instance, under one lock: its topics with their parked requests, the
 * partitions it is assigned with their fetched records, offers and acks, and whether it still takes requests.
 *
 * <p>Request threads call {@link #park}, {@link #giveUp}, {@link #ack} and {@link #shutdown}; the member's owning
 * thread ({@link MemberLoop}, {@link Handover}) hands in what it fetched and takes out what to pause and commit. No
 * method blocks on Kafka; only {@link #awaitAcks} waits, and it takes acks meanwhile.
 */
final class GroupState {

    private static final System.Logger LOG = System.getLogger(GroupState.class.getName());
    /** Longest real-time wait in {@link #awaitAcks} before the clock is read again (a fake clock moves by itself). */
    private static final Duration ACK_WAIT_SLICE = Duration.ofMillis(100);
    /** Records buffered per partition before fetching pauses; a bound on memory, whatever the request limit. */
    static final int MAX_FETCH_BUFFER = 256;

    private final String group;
    private final ConsumerConfig config;
    private final Clock clock;
    private final ConsumerMetrics metrics;

    private final int fetchBuffer;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition acked = lock.newCondition();
    /** Signalled when a paused partition can take more records, while the owning thread waits for that. */
    private final Condition refill = lock.newCondition();
    // guarded by lock
    private final Map<String, TopicState> topics = new HashMap<>();
    private final Map<TopicPartition, PartitionState> assigned = new HashMap<>();
    /** Consulted under the lock before every hand-out; see {@link ServingGate}. */
    private volatile ServingGate gate = ServingGate.ALWAYS_OPEN;
    /** Written under the lock; read without it by {@link #isClosed()}, a hint that {@link #park} confirms. */
    private volatile boolean closed;
    private Instant shutdownDeadline;

    GroupState(String group, ConsumerConfig config, Clock clock, ConsumerMetrics metrics) {
        this.group = group;
        this.config = config;
        this.clock = clock;
        this.metrics = metrics;
        this.fetchBuffer = Math.min(config.channelBufferSize(), MAX_FETCH_BUFFER);
    }

    String group() {
        return group;
    }

    private <T> T locked(java.util.function.Supplier<T> action) {
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }

    private void locked(Runnable action) {
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
        lock.lock();
        try {
            if (closed) {
                if (shutdownDeadline != null) {
                    throw PixyException.shuttingDown();
                }
                return null;
            }
            TopicState t = subscribed(topic, arrival);
            WaitingRequest r;
            try {
                r = t.park(arrival, arrival.plus(config.longPollingTimeout()), config.channelBufferSize(), autoAck,
                        receiver);
            } catch (PixyException e) {
                t.metrics.request(ConsumerMetrics.Outcome.TOO_MANY_REQUESTS);
                throw e;
            }
            dispatch(t, clock.instant());
            refillIfWanted();
            return r;
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: the topic's state, made (and the owning thread woken to subscribe to it) when it is new here. */
    private TopicState subscribed(String topic, Instant now) {
        TopicState t = topics.get(topic);
        if (t == null) {
            t = new TopicState(topic, now, metrics.topic(group, topic));
            topics.put(topic, t);
            // a topic to subscribe to: the owning thread should not sit out its wait
            wakeOwner();
        }
        return t;
    }

    /** Under the lock: serves the topic's parked requests from its partitions while the gate is open. */
    private void dispatch(TopicState t, Instant now) {
        t.dispatch(now, config.maxPendingMessages(), config.maxRetries(), gate);
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
        locked(() -> {
            Instant now = clock.instant();
            topics.values().forEach(t -> dispatch(t, now));
        });
    }

    /** A request stops waiting: unless a message was handed over at the last moment, it is answered {@code answer}. */
    void giveUp(String topic, WaitingRequest r, PixyException answer) {
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
    boolean returnOffer(ConsumedMessage m) {
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
            refillIfWanted();
            return true;
        });
    }

    /** Acks a message of a partition held here, also while closing; false when the partition is not held here. */
    boolean ack(String topic, int partition, long offset) {
        lock.lock();
        try {
            PartitionState p = assigned.get(new TopicPartition(topic, partition));
            if (p == null) {
                return false;
            }
            boolean changed = p.ack(offset);
            acked.signalAll();
            releaseEverywhere(p.tp, offset);
            TopicState t = topics.get(topic);
            if (t != null) {
                if (changed) {
                    t.metrics.acked();
                }
                if (t.hasTakers()) {
                    dispatch(t, clock.instant());
                }
            }
            refillIfWanted();
            return true;
        } finally {
            lock.unlock();
        }
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
            streams().forEach(stream -> stream.draining = true);
            acked.signalAll();
            wakeOwner();
        });
    }

    /**
     * Attaches a stream to its topics (subscribing to the ones new here). Returns false when this member is leaving
     * (the caller gets a new one).
     *
     * @throws PixyException shutting down
     */
    boolean attach(MessageStream stream) {
        lock.lock();
        try {
            if (closed) {
                if (shutdownDeadline != null) {
                    throw PixyException.shuttingDown();
                }
                return false;
            }
            Instant now = clock.instant();
            for (String topic : stream.topics) {
                subscribed(topic, now).addStream(stream);
            }
            stream.state = this;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** The stream's client can take {@code n} more messages: serve it what is ready. */
    void credit(MessageStream stream, long n) {
        locked(() -> {
            if (stream.ended) {
                return;
            }
            stream.addCredits(n);
            Instant now = clock.instant();
            for (String topic : stream.topics) {
                TopicState t = topics.get(topic);
                if (t != null) {
                    dispatch(t, now);
                }
            }
            refillIfWanted();
        });
    }

    /** What became of a stream's acks: those of partitions not held here, and how many were not out with a client. */
    record StreamAcks(List<MessageStream.Ack> elsewhere, int ignored) {
    }

    /**
     * Acks through a stream, all under one hold of the lock: as {@link #ack} each, with one dispatch per topic at the
     * end; but only of messages out with a client, so a stray ack (a default partition 0, offset 0) cannot mark a
     * message nobody has seen as done.
     */
    StreamAcks acksFromStream(MessageStream stream, List<MessageStream.Ack> acks) {
        List<MessageStream.Ack> notHere = new ArrayList<>(0);
        int ignored = 0;
        lock.lock();
        try {
            Map<String, int[]> changedByTopic = new HashMap<>(2);
            for (MessageStream.Ack a : acks) {
                TopicPartition tp = new TopicPartition(a.topic(), a.partition());
                int attempt = stream.release(tp, a.offset());
                PartitionState p = assigned.get(tp);
                if (p == null) {
                    notHere.add(a);
                    continue;
                }
                if (!p.isOffered(a.offset())) {
                    ignored++;
                    continue;
                }
                int[] changed = changedByTopic.computeIfAbsent(a.topic(), t -> new int[1]);
                if (p.ack(a.offset())) {
                    changed[0]++;
                }
                if (attempt != 1) {
                    // a first delivery went to this stream alone; a later one may have gone to others before it
                    releaseEverywhere(tp, a.offset());
                }
            }
            if (changedByTopic.isEmpty()) {
                return new StreamAcks(notHere, ignored);
            }
            acked.signalAll();
            Instant now = clock.instant();
            changedByTopic.forEach((topic, changed) -> {
                TopicState t = topics.get(topic);
                if (t != null) {
                    t.metrics.acked(changed[0]);
                    if (t.hasTakers()) {
                        dispatch(t, now);
                    }
                }
            });
            refillIfWanted();
            return new StreamAcks(notHere, ignored);
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: an acked message is held by no stream any more, whichever client acked it. */
    private void releaseEverywhere(TopicPartition tp, long offset) {
        TopicState t = topics.get(tp.topic());
        if (t != null) {
            for (MessageStream s : t.streams()) {
                s.release(tp, offset);
            }
        }
    }

    /**
     * A stream gives back a message it holds: offered again after {@code delay}. False when the stream does not hold
     * it or its partition is no longer here.
     */
    boolean nack(MessageStream stream, TopicPartition tp, long offset, Duration delay) {
        if (delay.compareTo(config.ackTimeout()) > 0) {
            // a longer one would hold a revoked partition (and the group's rebalance) waiting for it
            throw PixyException.badRequest("a nack's delay_ms (" + delay.toMillis()
                    + ") must not be longer than consumer.ack_timeout (" + config.ackTimeout().toMillis() + " ms)");
        }
        return locked(() -> {
            int attempt = stream.release(tp, offset);
            PartitionState p = assigned.get(tp);
            if (attempt < 0 || p == null) {
                return false;
            }
            Instant now = clock.instant();
            if (!p.giveBack(offset, attempt, now.plus(delay))) {
                return false;
            }
            TopicState t = topics.get(tp.topic());
            if (t != null && delay.isZero()) {
                dispatch(t, now);
            }
            return true;
        });
    }

    /**
     * Ends a stream: it leaves its topics and what it held is offered again at once (to the other clients, now).
     * {@code reason} goes to its sink; null when its client ended it. Returns how many messages were given back.
     */
    int detach(MessageStream stream, PixyException reason) {
        return locked(() -> {
            if (stream.ended) {
                return 0;
            }
            stream.ended = true;
            Instant now = clock.instant();
            int givenBack = 0;
            for (ConsumedMessage m : stream.unsent) {
                TopicPartition tp = new TopicPartition(m.topic(), m.partition());
                PartitionState p = assigned.get(tp);
                if (stream.release(tp, m.offset()) == m.attempt() && p != null && p.undoOffer(m.offset(),
                        m.attempt(), now)) {
                    givenBack++;
                }
            }
            stream.unsent.clear();
            for (var held : stream.held.entrySet()) {
                PartitionState p = assigned.get(held.getKey());
                if (p == null) {
                    continue;
                }
                for (var offer : held.getValue().entrySet()) {
                    if (p.giveBack(offer.getKey(), offer.getValue(), now)) {
                        givenBack++;
                    }
                }
            }
            stream.held.clear();
            for (String topic : stream.topics) {
                TopicState t = topics.get(topic);
                if (t != null) {
                    t.removeStream(stream, now);
                    dispatch(t, now);
                }
            }
            refillIfWanted();
            if (reason != null) {
                stream.sink.end(reason, givenBack);
            }
            return givenBack;
        });
    }

    /** Under the lock: every stream attached to one of the topics, once each. */
    private Set<MessageStream> streams() {
        Set<MessageStream> all = new java.util.LinkedHashSet<>();
        topics.values().forEach(t -> all.addAll(t.streams()));
        return all;
    }

    boolean isShuttingDown() {
        return locked(() -> shutdownDeadline != null);
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
            List.copyOf(t.streams()).forEach(stream -> detach(stream, new PixyException(ErrorKind.INTERNAL, reason)));
            t.expire();
        }));
    }

    /**
     * Takes in one poll's records and the fetch positions known after it, serves parked requests, drops exhausted
     * retries, expires idle topics, and returns the held partitions whose fetching should stop: a buffer of
     * {@code fetchBuffer} records or more than {@code max_pending_messages} offers awaiting acks (the
     * original's pending limit).
     */
    Set<TopicPartition> absorb(ConsumerRecords<byte[], byte[]> records, Map<TopicPartition, Long> positions,
                               Instant now) {
        Set<TopicPartition> full = new HashSet<>();
        lock.lock();
        try {
            for (TopicPartition tp : records.partitions()) {
                PartitionState p = assigned.get(tp);
                if (p != null) {
                    for (ConsumerRecord<byte[], byte[]> record : records.records(tp)) {
                        p.addFetched(record);
                    }
                }
            }
            positions.forEach((tp, position) -> {
                PartitionState p = assigned.get(tp);
                if (p != null) {
                    p.fetchedUpTo(position);
                }
            });
            for (PartitionState p : assigned.values()) {
                p.takeDueRetry(now, config.maxRetries());
            }
            for (TopicState t : topics.values()) {
                dispatch(t, now);
                if (t.shouldExpire(now, config.subscriptionTimeout(), config.ackTimeout())) {
                    LOG.log(Level.INFO, "Topic subscription expired: group={0}, topic={1}", group, t.topic);
                    t.expire();
                }
            }
            for (PartitionState p : assigned.values()) {
                if (p.shouldPauseFetching(fetchBuffer, config.maxPendingMessages())) {
                    full.add(p.tp);
                }
            }
        } finally {
            lock.unlock();
        }
        return full;
    }

    /**
     * Publishes each topic's gauges. {@code endOffsets} gives a partition's end as far as the consumer knows it (null
     * when it does not).
     */
    void reportState(Function<TopicPartition, Long> endOffsets) {
        locked(() -> {
            Map<String, Long> lag = new HashMap<>();
            assigned.forEach((tp, p) -> {
                Long end = endOffsets.apply(tp);
                if (end != null) {
                    lag.merge(tp.topic(), Math.max(0, end - p.committableOffset()), Long::sum);
                }
            });
            for (TopicState t : topics.values()) {
                t.metrics.state(t.waitingCount(), t.unackedCount(), lag.getOrDefault(t.topic, 0L));
            }
        });
    }

    /** Newly initialized partitions join their topics (a topic nobody asked for here is created expired). */
    void add(Map<TopicPartition, PartitionState> states) {
        locked(() -> {
            Instant now = clock.instant();
            states.forEach((tp, p) -> {
                assigned.put(tp, p);
                topics.computeIfAbsent(tp.topic(), name -> {
                    TopicState t = new TopicState(name, now, metrics.topic(group, name));
                    t.expire();
                    return t;
                }).add(p);
            });
            topics.values().forEach(t -> dispatch(t, now));
        });
    }

    /** True when no message of a held partition is out with a client (nothing to redeliver or commit soon). */
    boolean nothingOut() {
        return locked(() -> assigned.values().stream().allMatch(p -> p.offeredCount() == 0));
    }

    /** The current offsets (with sparse acks) of every partition held, changed or not; nothing is marked submitted. */
    Map<TopicPartition, OffsetAndMetadata> currentOffsets() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        locked(() -> assigned.forEach((tp, p) -> offsets.put(tp, p.current())));
        return offsets;
    }

    /** Offsets (with sparse acks) that changed since they were last submitted, marked as submitted. */
    Map<TopicPartition, OffsetAndMetadata> changedOffsets() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        locked(() -> assigned.forEach((tp, p) -> p.commitIfChanged().ifPresent(o -> offsets.put(tp, o))));
        return offsets;
    }

    /** A commit of these partitions failed: the next {@link #changedOffsets()} carries them again. */
    void commitFailed(Collection<TopicPartition> partitions) {
        locked(() -> partitions.stream().map(assigned::get).filter(p -> p != null)
                .forEach(PartitionState::commitFailed));
    }

    List<TopicPartition> assignedPartitions() {
        return locked(() -> new ArrayList<>(assigned.keySet()));
    }

    /** The current positions of the held partitions, changed or not (for the final commit). */
    Map<TopicPartition, OffsetAndMetadata> positions() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        locked(() -> assigned.forEach((tp, p) -> offsets.put(tp, p.position())));
        return offsets;
    }

    /**
     * Stops offering from these partitions and waits until what they offered is acked or overdue by
     * {@code ack_timeout} (as the original waits on a rebalance), taking acks meanwhile; at most until {@code limit},
     * and never past the shutdown's deadline once shutdown began.
     */
    void awaitAcks(Collection<TopicPartition> partitions, Instant limit) {
        lock.lock();
        try {
            List<PartitionState> revoking = partitions.stream().map(assigned::get).filter(p -> p != null).toList();
            revoking.forEach(PartitionState::startRevoking);
            while (true) {
                Instant now = clock.instant();
                Instant until = shutdownDeadline != null && shutdownDeadline.isBefore(limit) ? shutdownDeadline
                        : limit;
                long wait = Math.min(nanosUntil(now, until), revoking.stream()
                        .mapToLong(p -> p.waitForAcks(now).toNanos()).max().orElse(0));
                if (wait <= 0) {
                    return;
                }
                acked.await(Math.min(wait, ACK_WAIT_SLICE.toNanos()), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /** Nanoseconds from now until {@code until}, saturating ({@link Instant#MAX} means no limit). */
    private static long nanosUntil(Instant now, Instant until) {
        Duration d = Duration.between(now, until);
        return d.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE : d.toNanos();
    }

    /**
     * The owning thread, with every held partition paused, waits here (at most {@code max}) until one of them can
     * take more records: its buffer half empty and its offers within {@code max_pending_messages}. Polling Kafka
     * instead would sleep the whole poll interval while requests empty the buffers.
     */
    void awaitRefill(Duration max) {
        lock.lock();
        try {
            if (anyCanRefill()) {
                return;
            }
            refill.await(max.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    private boolean anyCanRefill() {
        int lowWater = Math.max(1, fetchBuffer / 2);
        for (PartitionState p : assigned.values()) {
            if (p.canRefill(lowWater, config.maxPendingMessages())) {
                return true;
            }
        }
        return false;
    }

    /** Under the lock: wakes the owning thread if it waits for a refill and one is possible now. */
    private void refillIfWanted() {
        if (lock.hasWaiters(refill) && anyCanRefill()) {
            refill.signal();
        }
    }

    private void wakeOwner() {
        refill.signal();
    }

    /** True while the owning thread waits in {@link #awaitRefill} (for tests and diagnostics). */
    boolean awaitingRefill() {
        return locked(() -> lock.hasWaiters(refill));
    }

    /** True while the owning thread waits in {@link #awaitAcks} (for tests and diagnostics). */
    boolean awaitingAcks() {
        return locked(() -> lock.hasWaiters(acked));
    }

    /** Removes the partitions and returns their positions, atomically, so no ack lands in between. */
    Map<TopicPartition, OffsetAndMetadata> takeFinal(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        locked(() -> partitions.forEach(tp -> {
            PartitionState p = assigned.remove(tp);
            if (p == null) {
                return;
            }
            offsets.put(tp, p.position());
            TopicState t = topics.get(tp.topic());
            if (t != null) {
                t.remove(p);
                t.streams().forEach(stream -> stream.held.remove(tp));
            }
        }));
        return offsets;
    }

    /** The member has left: parked requests are answered (503 when shutting down, else {@code answer}). */
    void close(PixyException answer) {
        locked(() -> {
            closed = true;
            PixyException a = shutdownDeadline != null ? PixyException.shuttingDown() : answer;
            streams().forEach(stream -> detach(stream, a));
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
}
