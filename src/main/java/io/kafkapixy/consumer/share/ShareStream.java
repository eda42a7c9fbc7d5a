package io.kafkapixy.consumer.share;

import io.kafkapixy.consumer.ConsumerStream;
import io.kafkapixy.consumer.InFlight;
import io.kafkapixy.consumer.StreamTurns;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.consumer.AcknowledgeType;

/**
 * A {@link ConsumerStream} of a share group, served by the {@link ShareTopic}s of its topics beside their unary
 * requests: each credit is a client waiting, so the topics' share consumers poll for it. An ack or reject is settled at
 * the broker as the unary calls settle (without an answer); a nack releases the record to the broker once its delay
 * has passed (the record stays locked to this instance meanwhile, at most until its lock runs out); at the stream's
 * end what it held is released at once, and what it was handed but never sent goes to the next client as the same
 * delivery.
 *
 * <p>Lock order: a topic's lock, then this stream's monitor. The transport's calls take no topic lock while holding
 * the monitor.
 */
final class ShareStream implements ConsumerStream, StreamTurns.Taker<Acquired> {

    private final List<String> topicNames;
    private final long maxCredits;
    private final Duration ackTimeout;
    private final Sink sink;
    /** The topics' state, set once before the stream is used. */
    private volatile Map<String, ShareTopic> topics = Map.of();
    // guarded by this
    private long credits;
    private boolean flushPending;
    private final List<Acquired> unflushed = new ArrayList<>();
    private final Set<Acquired> unsent = new HashSet<>();
    private boolean draining;
    private boolean ended;

    ShareStream(List<String> topics, long maxCredits, Duration ackTimeout, Sink sink) {
        this.topicNames = List.copyOf(topics);
        this.maxCredits = maxCredits;
        this.ackTimeout = ackTimeout;
        this.sink = sink;
    }

    void serveFrom(Map<String, ShareTopic> topics) {
        this.topics = Map.copyOf(topics);
    }

    @Override
    public void credit(long n) {
        synchronized (this) {
            if (n < 0 || credits + n > maxCredits) {
                throw PixyException.tooManyCredits(maxCredits);
            }
            credits += n;
        }
        resume();
    }

    @Override
    public int ack(List<Ack> acks) {
        return settle(acks, AcknowledgeType.ACCEPT);
    }

    /**
     * A record whose dead letter is not written is out again, no longer with this stream: it is released after its
     * ack_timeout.
     */
    @Override
    public int reject(List<Ack> rejects) {
        int notTaken = 0;
        for (Ack a : rejects) {
            ShareTopic t = topic(a.topic());
            if (t == null) {
                notTaken++;
            } else if (t.letters.enabled()) {
                if (t.letters.reject(a.partition(), a.offset()) == null) {
                    notTaken++;
                }
            } else if (t.settle(a.partition(), a.offset(), AcknowledgeType.REJECT, false) == null) {
                notTaken++;
            }
        }
        return notTaken;
    }

    @Override
    public int renew(List<Ack> renewals) {
        int notTaken = 0;
        for (Ack a : renewals) {
            ShareTopic t = topic(a.topic());
            if (t == null || !t.renew(a.partition(), a.offset())) {
                notTaken++;
            }
        }
        return notTaken;
    }

    private int settle(List<Ack> refs, AcknowledgeType how) {
        int notTaken = 0;
        for (Ack a : refs) {
            ShareTopic t = topic(a.topic());
            if (t == null || t.settle(a.partition(), a.offset(), how, false) == null) {
                notTaken++;
            }
        }
        return notTaken;
    }

    @Override
    public boolean nack(String topic, int partition, long offset, Duration delay) {
        if (delay.compareTo(ackTimeout) > 0) {
            throw PixyException.badRequest("a nack's delay_ms (" + delay.toMillis()
                    + ") must not be longer than consumer.ack_timeout (" + ackTimeout.toMillis() + " ms)");
        }
        ShareTopic t = topic(topic);
        return t != null && t.streamDesk.nack(this, partition, offset, delay);
    }

    /** The topic an ack names; the empty name is the stream's one topic. */
    private ShareTopic topic(String name) {
        if (name.isEmpty() && topicNames.size() == 1) {
            return topics.get(topicNames.get(0));
        }
        return topics.get(name);
    }

    @Override
    public int close() {
        synchronized (this) {
            if (ended) {
                return 0;
            }
            ended = true;
        }
        int givenBack = 0;
        for (ShareTopic t : topics.values()) {
            givenBack += t.streamDesk.detach(this);
        }
        return givenBack;
    }

    @Override
    public List<String> topics() {
        return topicNames;
    }

    @Override
    public void resume() {
        topics.values().forEach(ShareTopic::serve);
    }

    // ---- under a topic's lock ----

    @Override
    public synchronized boolean wants() {
        return credits > 0 && !draining && !ended && sink.ready();
    }

    /** How many records this stream would take now. */
    synchronized long demand() {
        return wants() ? credits : 0;
    }

    /** Hands a record over, spending a credit; true when it is the first since the last {@link #flush()}. */
    @Override
    public synchronized boolean take(Acquired a) {
        credits--;
        if (sink.deliver(a.message)) {
            unflushed.clear();
        }
        unflushed.add(a);
        boolean first = !flushPending;
        flushPending = true;
        return first;
    }

    @Override
    public synchronized void flush() {
        flushPending = false;
        if (!sink.flush()) {
            unsent.addAll(unflushed);
        }
        unflushed.clear();
    }

    /** The record was settled or nacked: no longer this stream's. */
    synchronized void released(Acquired a) {
        unsent.remove(a);
    }

    /** Whether the record was handed to this stream and never reached its client. */
    synchronized boolean neverSent(Acquired a) {
        return unsent.contains(a);
    }

    /** Nothing more for this stream: its group is shutting down (acks are still taken). */
    synchronized void drain() {
        draining = true;
    }

    /**
     * Under {@code from}'s lock, which detached the stream: the proxy ended it (unless its client had). Tells the
     * client's side; what it holds of its other topics is given back from another thread (their locks are not taken
     * under this one).
     */
    void endedByProxy(ShareTopic from, PixyException reason, int givenBack) {
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
        }
        sink.end(reason, givenBack);
        if (topics.size() > 1) {
            Thread.ofVirtual().name("share-stream-end").start(() -> topics.values().stream()
                    .filter(t -> t != from).forEach(t -> t.streamDesk.detach(this)));
        }
    }

    /** A copy for {@link InFlight}; {@code held} is the count of records out with it, from its topics. */
    synchronized InFlight.Stream view(int held) {
        return new InFlight.Stream(sink.peer(), topicNames, credits, held);
    }
}
