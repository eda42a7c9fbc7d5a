package io.kafkapixy.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.kafkapixy.errors.PixyException;
import org.apache.kafka.common.TopicPartition;

/**
 * A {@link ConsumerStream} of a classic group: it takes messages while it has credits and gives back, when it ends,
 * every message it was handed and did not ack or nack, to be offered again at once. It is served beside the unary requests of the same group member, from the
 * same partitions, under the same offset trackers, limits and redelivery rules.
 *
 * <p>Made by {@link Consumers#openStream}. The public methods are for the one thread of the stream's transport (one
 * request at a time); deliveries and the end come through the {@link Sink} from any thread, under the group's lock.
 * The fields below are guarded by that lock.
 */
public final class MessageStream implements ConsumerStream, StreamTurns.Taker<ConsumedMessage> {

    /** What a stream needs of the instance's consumers: the marks that let acks of served partitions in. */
    interface Owner {

        /** A message of that partition went to a client of the group here: acks of that partition are taken. */
        void markServed(String group, String topic, int partition);

        /** Acks a message of a partition another member here may still hold; false when none does. */
        boolean ackHeld(String group, String topic, int partition, long offset);

        /** Settles a message out with a client of the group here, as the unary calls do ({@link GroupKind#settle}). */
        java.util.concurrent.CompletableFuture<Void> settle(String group, String topic, int partition, long offset,
                                                            Settlement how);
    }

    /** What an ended stream leaves to give back: taken and never sent, and held (sent, not acked or nacked). */
    record Left(List<ConsumedMessage> unsent, Map<TopicPartition, Map<Long, Integer>> held) {
    }

    private final String group;
    /** The topics it consumes, each once, in the order subscribed. */
    private final List<String> topics;
    private final Sink sink;
    private final Owner owner;
    private final long maxCredits;
    /** The member's streams this one is attached to; set once, when it is attached. */
    private volatile StreamDelivery desk;

    // guarded by the group's lock
    private long credits;
    /** Messages handed to this stream and not acked or nacked through it: delivery attempt by offset. */
    private final Map<TopicPartition, Map<Long, Integer>> held = new HashMap<>();
    /** No more messages: the group member is shutting down (acks are still taken). */
    private boolean draining;
    private boolean ended;
    /** A message was taken since the last {@link #flush()}. */
    private boolean flushPending;
    /** Messages taken and not sent yet by the sink. */
    private final List<ConsumedMessage> unflushed = new ArrayList<>();
    /** Messages taken that the sink could not send: given back as never delivered. */
    private final List<ConsumedMessage> unsent = new ArrayList<>(0);

    MessageStream(Owner owner, String group, List<String> topics, long maxCredits, Sink sink) {
        this.owner = owner;
        this.group = group;
        this.topics = List.copyOf(topics);
        this.maxCredits = maxCredits;
        this.sink = sink;
    }

    /**
     * The client can take {@code n} more messages.
     *
     * @throws PixyException the credits not yet spent would be over the limit; the stream is left as it was
     */
    @Override
    public void credit(long n) {
        desk.credit(this, n);
    }

    /**
     * Acks messages out with clients of the group (of any delivery to any client of the group on this instance, as
     * the unary Ack does). Returns how many were not taken: of partitions no member here holds any more (their next
     * owner offers them again), or of messages not out with a client (never offered, acked already).
     */
    @Override
    public int ack(List<Ack> acks) {
        StreamDelivery.StreamAcks result = desk.acksFromStream(this, acks);
        int notHeld = result.ignored();
        for (Ack a : result.elsewhere()) {
            // a partition this member gave up may be held by another member here that is still leaving
            if (!owner.ackHeld(group, a.topic(), a.partition(), a.offset())) {
                notHeld++;
            }
        }
        return notHeld;
    }

    /**
     * Rejects messages ("never deliver this again"), as the unary Reject does; returns how many were not taken (not
     * out with a client of the group here). A dead letter that is not written leaves its message out, no longer with
     * this stream: it comes again after its ack_timeout.
     */
    @Override
    public int reject(List<Ack> rejects) {
        return settle(rejects, Settlement.REJECT);
    }

    /** Restarts the ack_timeout of messages out with clients of the group here; returns how many were not. */
    @Override
    public int renew(List<Ack> renewals) {
        return settle(renewals, Settlement.RENEW);
    }

    private int settle(List<Ack> refs, Settlement how) {
        int notHeld = 0;
        for (Ack r : refs) {
            var settled = owner.settle(group, r.topic(), r.partition(), r.offset(), how);
            if (settled.isCompletedExceptionally()) {
                notHeld++;
            }
        }
        return notHeld;
    }

    /**
     * Gives back a message this stream was handed: it is offered again (to this stream or another client) after
     * {@code delay} instead of after {@code ack_timeout}. False when this stream does not hold it (acked, given back
     * already, delivered again since, or its partition gone).
     *
     * @throws PixyException {@code delay} is longer than {@code consumer.ack_timeout}
     */
    @Override
    public boolean nack(String topic, int partition, long offset, Duration delay) {
        return desk.nack(this, new TopicPartition(topic, partition), offset, delay);
    }

    /**
     * The client ended the stream (or is gone): what it held is offered again at once. Returns how many messages
     * that was; 0 when the stream had ended already.
     */
    @Override
    public int close() {
        return desk.detach(this, null);
    }

    @Override
    public boolean wants() {
        return credits > 0 && !draining && !ended && sink.ready();
    }

    /** Under the group's lock: checks the limit, then adds. */
    void addCredits(long n) {
        if (n < 0 || credits + n > maxCredits) {
            throw PixyException.tooManyCredits(maxCredits);
        }
        credits += n;
    }

    /**
     * Under the group's lock: hands a message over, spending a credit. True when it is the first since the last
     * {@link #flush()}: the caller flushes this stream at the end of its round.
     */
    @Override
    public boolean take(ConsumedMessage m) {
        credits--;
        TopicPartition tp = new TopicPartition(m.topic(), m.partition());
        Map<Long, Integer> offsets = held.get(tp);
        if (offsets == null) {
            offsets = new HashMap<>();
            held.put(tp, offsets);
            // once per partition held, not per message: the mark stays while the group has members here
            owner.markServed(group, m.topic(), m.partition());
        }
        offsets.put(m.offset(), m.attempt());
        if (sink.deliver(m)) {
            unflushed.clear();
        }
        unflushed.add(m);
        boolean first = !flushPending;
        flushPending = true;
        return first;
    }

    /** Under the group's lock: sends what was taken since the last flush. */
    @Override
    public void flush() {
        flushPending = false;
        if (!sink.flush()) {
            unsent.addAll(unflushed);
        }
        unflushed.clear();
    }

    /** The topics this stream consumes. */
    @Override
    public List<String> topics() {
        return topics;
    }

    /** The client reads again (see {@link Sink#ready()}): serve it what is ready. */
    @Override
    public void resume() {
        desk.credit(this, 0);
    }

    /** Under the group's lock: the delivery attempt this stream holds of that message, or -1; no longer held. */
    int release(TopicPartition tp, long offset) {
        Map<Long, Integer> offsets = held.get(tp);
        if (offsets == null) {
            return -1;
        }
        Integer attempt = offsets.remove(offset);
        if (offsets.isEmpty()) {
            held.remove(tp);
        }
        return attempt == null ? -1 : attempt;
    }

    /** Attached to a member's streams (once; the member serves it from then on). */
    void attachTo(StreamDelivery streams) {
        this.desk = streams;
    }

    /** Under the group's lock: whether the stream has ended. */
    boolean ended() {
        return ended;
    }

    /** Under the group's lock: the member is shutting down; nothing more is handed to this stream. */
    void startDraining() {
        draining = true;
    }

    /**
     * Under the group's lock: ends the stream and hands over what it leaves, no longer its own; null when it had ended
     * already. A message taken and never sent is left only if this stream still held that delivery of it.
     */
    Left end() {
        if (ended) {
            return null;
        }
        ended = true;
        List<ConsumedMessage> neverSent = new ArrayList<>(unsent.size());
        for (ConsumedMessage m : unsent) {
            if (release(new TopicPartition(m.topic(), m.partition()), m.offset()) == m.attempt()) {
                neverSent.add(m);
            }
        }
        unsent.clear();
        Map<TopicPartition, Map<Long, Integer>> stillHeld = new HashMap<>(held);
        held.clear();
        return new Left(neverSent, stillHeld);
    }

    /** Under the group's lock: the partition left this member; what the stream held of it is no longer its to give. */
    void forget(TopicPartition tp) {
        held.remove(tp);
    }

    /** Under the group's lock: tells the client's side that the proxy ended the stream. */
    void endedByProxy(PixyException reason, int givenBack) {
        sink.end(reason, givenBack);
    }

    /** Under the group's lock: how many messages the stream holds (sent or taken, not acked or nacked). */
    int heldCount() {
        return held.values().stream().mapToInt(Map::size).sum();
    }

    /** Under the group's lock: credits granted and not yet spent. */
    long credits() {
        return credits;
    }

    /** Under the group's lock: a copy for {@link InFlight}. */
    InFlight.Stream view() {
        int n = 0;
        for (Map<Long, Integer> offsets : held.values()) {
            n += offsets.size();
        }
        return new InFlight.Stream(sink.peer(), topics, credits, n);
    }
}
