package io.kafkapixy.consumer;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

import io.kafkapixy.errors.PixyException;

/**
 * A topic of a group on this instance: the FIFO queue of parked requests, the assigned partitions served round-robin,
 * and when the topic was last asked for.
 *
 * <p>Not thread-safe: guarded by the {@link GroupState}'s lock.
 */
final class TopicState {

    final String topic;
    private final ParkedRequests waiting = new ParkedRequests();
    private final List<PartitionState> partitions = new ArrayList<>();
    /** Streams taking this topic's messages, served round-robin after the parked requests. */
    private final List<MessageStream> streams = new ArrayList<>();
    private final StreamTurns<MessageStream, ConsumedMessage> streamTurns = new StreamTurns<>();
    private int next;
    private Instant lastRequest;
    private boolean expired;
    /** The topic's number of partitions as the member last saw it; 0 while not known. */
    private int partitionCount;
    final ConsumerMetrics.Topic metrics;

    TopicState(String topic, Instant created) {
        this(topic, created, ConsumerMetrics.Topic.NONE);
    }

    TopicState(String topic, Instant created, ConsumerMetrics.Topic metrics) {
        this.topic = topic;
        this.lastRequest = created;
        this.metrics = metrics;
    }

    /**
     * Parks a request; at most {@code limit} + 1 may wait at once, else 429 (the original holds one request while it
     * queues {@code channel_buffer_size} more). A request revives an expired topic.
     */
    WaitingRequest park(Instant arrival, Instant deadline, int limit) {
        return park(arrival, deadline, limit, false, Receiver.ANY);
    }

    /**
     * As {@link #park(Instant, Instant, int)}; with {@code autoAck} the message is acked once its transport says it
     * was delivered, and it is handed over only while {@code receiver} can take it.
     */
    WaitingRequest park(Instant arrival, Instant deadline, int limit, boolean autoAck, Receiver receiver) {
        WaitingRequest r = new WaitingRequest(deadline, metrics, autoAck, receiver);
        if (!waiting.park(r, limit)) {
            throw PixyException.tooManyRequests();
        }
        if (arrival.isAfter(lastRequest)) {
            lastRequest = arrival;
        }
        expired = false;
        return r;
    }

    /** Takes a request that gave up out of the queue; true if it was still waiting. */
    boolean unpark(WaitingRequest r) {
        return waiting.remove(r);
    }

    /**
     * Hands messages to parked requests, oldest request first, one message each, round-robin over partitions.
     * Requests past their deadline are answered {@code long polling timeout}.
     */
    void dispatch(Instant now, int maxPending, int maxRetries) {
        dispatch(now, maxPending, maxRetries, ServingGate.ALWAYS_OPEN);
    }

    /**
     * As {@link #dispatch(Instant, int, int)}, looking at {@code gate} before each message it hands out; then, with
     * no request left waiting, hands messages to the streams with credits, one each in turn.
     */
    void dispatch(Instant now, int maxPending, int maxRetries, ServingGate gate) {
        Supplier<ConsumedMessage> source = () -> gate.open() ? nextMessage(now, maxPending, maxRetries) : null;
        if (waiting.handOut(now, source)) {
            streamTurns.serve(streams, s -> source.get());
        }
    }

    void addStream(MessageStream s) {
        streams.add(s);
        expired = false;
    }

    /** Takes a stream out; from now on the topic idles towards its subscription timeout if nothing else waits. */
    void removeStream(MessageStream s, Instant now) {
        if (streams.remove(s) && now.isAfter(lastRequest)) {
            lastRequest = now;
        }
    }

    List<MessageStream> streams() {
        return streams;
    }

    private ConsumedMessage nextMessage(Instant now, int maxPending, int maxRetries) {
        int n = partitions.size();
        for (int i = 0; i < n; i++) {
            int index = (next + i) % n;
            PartitionState p = partitions.get(index);
            ConsumedMessage m = p.next(now, maxPending, maxRetries);
            if (m != null) {
                next = (index + 1) % n;
                return m;
            }
        }
        return null;
    }

    /** Answers every parked request with {@code error}. */
    void failAll(PixyException error) {
        waiting.failAll(error);
    }

    void add(PartitionState p) {
        p.reportTo(metrics);
        partitions.add(p);
        partitions.sort(Comparator.comparingInt(s -> s.tp.partition()));
        next = 0;
    }

    void remove(PartitionState p) {
        partitions.remove(p);
        next = 0;
    }

    boolean hasPartitions() {
        return !partitions.isEmpty();
    }

    int waitingCount() {
        return waiting.size();
    }

    /** Messages offered from this topic's partitions and not acked yet. */
    int unackedCount() {
        int n = 0;
        for (PartitionState p : partitions) {
            n += p.offeredCount();
        }
        return n;
    }

    /** Parked requests or streams: someone to hand messages to, and a reason to keep the subscription. */
    boolean hasTakers() {
        return !waiting.isEmpty() || !streams.isEmpty();
    }

    /**
     * Subscription expiry, the original's rule: no request for {@code subscriptionTimeout}, and either nothing offered
     * is unacked or {@code max(subscriptionTimeout, ackTimeout)} has passed since the last request.
     */
    boolean shouldExpire(Instant now, java.time.Duration subscriptionTimeout, java.time.Duration ackTimeout) {
        if (expired || hasTakers()) {
            return false;
        }
        java.time.Duration idle = java.time.Duration.between(lastRequest, now);
        if (idle.compareTo(subscriptionTimeout) < 0) {
            return false;
        }
        boolean safe = partitions.stream().allMatch(p -> p.offeredCount() == 0);
        java.time.Duration unsafeLimit = subscriptionTimeout.compareTo(ackTimeout) >= 0 ? subscriptionTimeout
                : ackTimeout;
        return safe || idle.compareTo(unsafeLimit) >= 0;
    }

    void expire() {
        expired = true;
    }

    /** When the last request came (or the last stream went), or when the topic was made. */
    Instant lastRequest() {
        return lastRequest;
    }

    boolean expired() {
        return expired;
    }

    void partitionCount(int n) {
        partitionCount = n;
    }

    /** A copy for {@link InFlight}: the partitions held here with their messages, then the others of the topic. */
    InFlight.Topic view(Instant now, InFlight.Rows rows) {
        List<InFlight.Partition> views = new ArrayList<>();
        java.util.Set<Integer> here = new java.util.HashSet<>();
        for (PartitionState p : partitions) {
            here.add(p.tp.partition());
            if (rows.take()) {
                views.add(p.view(now, rows));
            }
        }
        for (int i = 0; i < partitionCount; i++) {
            if (!here.contains(i) && rows.take()) {
                views.add(InFlight.Partition.notHere(i));
            }
        }
        return new InFlight.Topic(topic, waiting.size(), partitionCount, List.copyOf(views), 0, List.of());
    }
}
