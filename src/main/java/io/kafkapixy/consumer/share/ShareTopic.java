package io.kafkapixy.consumer.share;

import io.kafkapixy.consumer.ConsumedMessage;
import io.kafkapixy.consumer.ConsumerMetrics;
import io.kafkapixy.consumer.ConsumerSettings;
import io.kafkapixy.consumer.DeadLettering;
import io.kafkapixy.consumer.InFlight;
import io.kafkapixy.consumer.ParkedRequests;
import io.kafkapixy.consumer.Receiver;
import io.kafkapixy.consumer.Settler;
import io.kafkapixy.consumer.WaitingRequest;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.consumer.AcknowledgeType;

/**
 * One topic of one share group on this instance, under one lock: the parked requests and streams, the records its
 * share consumers acquired (waiting for a client, or out with one until settled), and the pool of those consumers.
 *
 * <p>A share consumer in explicit acknowledgement mode fetches again only when every record of its last poll is
 * settled (a renewed lock brings the record back instead of new ones), so a consumer whose batch has a record out
 * with a slow client fetches nothing until that record is settled. Each consumer here fetches a batch of up to
 * {@link ConsumerSettings#SHARE_BATCH} records, handed to the clients that wait and kept for the next ones, and the
 * pool grows while clients wait that no consumer is fetching for and no consumer is free to, up to
 * {@code share_consumers}: a slow client holds back one consumer's next batch, the others go on. The consumers' side
 * is {@link ShareTurns}, the streams' {@link ShareStreams}. When the last consumer has left and no client waits, the
 * topic is gone and the next request makes a new one.
 *
 * <p>Request and stream threads call the methods here; nothing under the lock calls Kafka.
 */
final class ShareTopic implements Settler {

    final String group;
    final String topic;
    final ConsumerConfig config;
    final Clock clock;
    final ConsumerMetrics.Topic meters;
    /** Makes a consumer (not started) for this topic. */
    final Function<ShareTopic, ShareWorker> workers;
    final Runnable onGone;
    final ShareTurns turns;
    final ShareStreams streamDesk;
    final ShareDemand demand;
    final ShareLetters letters;
    final ReentrantLock lock = new ReentrantLock();
    final Condition changed = lock.newCondition();
    // guarded by lock
    final ParkedRequests waiting = new ParkedRequests();
    final WaitingRecords unhanded = new WaitingRecords();
    final Map<Acquired.Key, Acquired> out = new HashMap<>();
    private final Set<Integer> served = new HashSet<>();
    final List<ShareWorker> pool = new ArrayList<>();
    final List<ShareStream> streams = new ArrayList<>();
    int polling;
    /** When a client last asked for a record here (a request parked, a record handed out); null before any. */
    Instant lastAsked;
    /** The topic's number of partitions, 0 while not known. */
    volatile int partitions;
    boolean gone;
    /** When a consumer last failed for good: no consumer starts for {@link ShareGroups#FAILURE_HOLD} after. */
    Instant failedAt;
    /** A consumer's failure is being answered: no new consumer starts meanwhile. */
    boolean failing;
    Instant shutdownDeadline;

    ShareTopic(String group, String topic, ConsumerConfig config, Clock clock, ConsumerMetrics.Topic meters,
               Function<ShareTopic, ShareWorker> workers, Runnable onGone) {
        this(group, topic, config, clock, meters, workers, onGone, DeadLettering.NONE, 0);
    }

    /** @param deliveryLimit deliveries after which the broker archives a released record; 0 when not known */
    ShareTopic(String group, String topic, ConsumerConfig config, Clock clock, ConsumerMetrics.Topic meters,
               Function<ShareTopic, ShareWorker> workers, Runnable onGone, DeadLettering letters,
               int deliveryLimit) {
        this.group = group;
        this.topic = topic;
        this.config = config;
        this.clock = clock;
        this.meters = meters;
        this.workers = workers;
        this.onGone = onGone;
        this.turns = new ShareTurns(this);
        this.streamDesk = new ShareStreams(this);
        this.demand = new ShareDemand(this);
        this.letters = new ShareLetters(this, letters, deliveryLimit);
    }

    /**
     * Parks a request, served at once when a record waits. Returns null when this topic is gone (the caller makes a
     * new one).
     *
     * @throws PixyException too many requests (the same bound as a classic group's topic), or shutting down
     */
    WaitingRequest park(Instant arrival, boolean autoAck, Receiver receiver) {
        lock.lock();
        try {
            if (shutdownDeadline != null) {
                throw PixyException.shuttingDown();
            }
            if (gone) {
                return null;
            }
            WaitingRequest r = new WaitingRequest(arrival.plus(config.longPollingTimeout()), meters, autoAck,
                    receiver);
            if (!waiting.park(r, config.channelBufferSize())) {
                meters.request(ConsumerMetrics.Outcome.TOO_MANY_REQUESTS);
                throw PixyException.tooManyRequests();
            }
            lastAsked = arrival;
            dispatch();
            return r;
        } finally {
            lock.unlock();
        }
    }

    /** The stream's client can take records (more credits, or it reads again): serve what waits. */
    void serve() {
        lock.lock();
        try {
            dispatch();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void giveUp(String topic, WaitingRequest r, PixyException answer) {
        lock.lock();
        try {
            if (!r.result.isDone() && waiting.remove(r)) {
                r.result.completeExceptionally(answer);
            }
            goneIfUnused();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean returnOffer(ConsumedMessage m) {
        lock.lock();
        try {
            Acquired a = out.get(new Acquired.Key(m.partition(), m.offset()));
            if (a == null || a.settlement != null || a.stream != null) {
                return false;
            }
            out.remove(a.key());
            a.handedAt = null;
            unhanded.addFirst(a);
            meters.returned();
            dispatch();
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean ack(String topic, int partition, long offset) {
        return settle(partition, offset, AcknowledgeType.ACCEPT, false) != null;
    }

    /**
     * Settles a record out with a client (any client of the group here): its consumer sends the settlement to the
     * broker, at once when {@code awaited} (a caller waits for the answer), else with its next poll. Returns what the
     * broker answers, or null when no such record is out from here (never handed out, settled or nacked already, or
     * its lock ran out).
     */
    CompletableFuture<Void> settle(int partition, long offset, AcknowledgeType how, boolean awaited) {
        lock.lock();
        try {
            Acquired a = out.remove(new Acquired.Key(partition, offset));
            if (a == null) {
                return null;
            }
            if (a.stream != null) {
                a.stream.released(a);
            }
            a.settlement = how;
            a.awaited = awaited;
            reportOldest();
            // a quiet settlement waits for the batch's last one or FLUSH_DELAY: its consumer is woken for the first
            // such settlement since its last send, not for each
            ShareWorker w = a.holder;
            boolean first = !awaited && w.unsentSince == null;
            if (first) {
                w.unsentSince = clock.instant();
            }
            if (awaited || first || w.batchSettled()) {
                changed.signalAll();
            }
            return a.confirmed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A client holding a record restarts its {@code ack_timeout} from now; its lock at the broker is renewed as it
     * needs. False when no such record is out from here.
     */
    boolean renew(int partition, long offset) {
        lock.lock();
        try {
            Acquired a = out.get(new Acquired.Key(partition, offset));
            if (a == null) {
                return false;
            }
            a.renewedAt = clock.instant();
            meters.renewed();
            // its consumer may sleep until the old due time, or a renewal of the lock may be due sooner now
            changed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** The broker answered the settlement of {@code a}: {@code error} null when it took it. Once per record. */
    void confirmed(Acquired a, Exception error) {
        if (error != null) {
            a.confirmed.completeExceptionally(error);
            return;
        }
        if (!a.confirmed.complete(null)) {
            return;
        }
        if (a.settlement == AcknowledgeType.ACCEPT) {
            meters.acked();
        } else if (a.settlement == AcknowledgeType.REJECT) {
            meters.rejected();
        } else if (!a.lockExpired) {
            meters.released();
        }
    }

    /** Settlements that could not be sent: their callers learn why. */
    void unconfirmed(List<Acquired> records, RuntimeException why) {
        records.forEach(a -> a.confirmed.completeExceptionally(why));
    }

    /** The record headers of a record out with a client from here; null when none is. */
    java.util.List<org.apache.kafka.common.header.Header> heldHeaders(int partition, long offset) {
        lock.lock();
        try {
            Acquired a = out.get(new Acquired.Key(partition, offset));
            return a == null ? null : a.message.headers();
        } finally {
            lock.unlock();
        }
    }

    /** Whether a message of {@code partition} was handed out from here: acks for others are not this topic's. */
    boolean served(int partition) {
        lock.lock();
        try {
            return served.contains(partition);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes no more requests, answers the parked ones {@code service is shutting down}, releases the records no client
     * has, and lets those out with clients wait for their acks until {@code shutdown_timeout} from now; streams get
     * nothing more and end once the consumers have gone.
     */
    void shutdown() {
        lock.lock();
        try {
            if (shutdownDeadline == null) {
                shutdownDeadline = clock.instant().plus(config.shutdownTimeout());
            }
            failWaiting(PixyException.shuttingDown());
            Acquired a;
            while ((a = unhanded.poll()) != null) {
                if (!letters.instead(a)) {
                    a.settlement = AcknowledgeType.RELEASE;
                }
            }
            streams.forEach(ShareStream::drain);
            if (pool.isEmpty() && !gone) {
                turns.goneNow(PixyException.shuttingDown());
            }
            changed.signalAll();
            // only a poll waits for records; a wake-up sent to a consumer doing anything else would end its next call
            pool.stream().filter(w -> w.polling).forEach(ShareWorker::wakeup);
        } finally {
            lock.unlock();
        }
    }

    int parkedRequests() {
        lock.lock();
        try {
            return waiting.size();
        } finally {
            lock.unlock();
        }
    }

    /** The streams attached now. */
    List<ShareStream> streamsNow() {
        lock.lock();
        try {
            return List.copyOf(streams);
        } finally {
            lock.unlock();
        }
    }

    /** The consumers still running; their threads end once they have settled what they hold. */
    List<ShareWorker> workers() {
        lock.lock();
        try {
            return List.copyOf(pool);
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: hands waiting records to the parked requests, then to the streams; adds a consumer if needed. */
    void dispatch() {
        waiting.handOut(clock.instant(), () -> unhanded.isEmpty() ? null : handOut().message);
        streamDesk.dispatch();
        demand.grow();
        reportOldest();
        if (demand.wantsPoll()) {
            changed.signalAll();
        }
    }

    /** Under the lock: tells the meters when the record out the longest with a client was handed out. */
    void reportOldest() {
        Instant oldest = null;
        for (Acquired a : out.values()) {
            if (oldest == null || a.handedAt.isBefore(oldest)) {
                oldest = a.handedAt;
            }
        }
        meters.oldestOut(oldest);
    }

    /** See {@link ShareTopicView#of}. */
    InFlight.Topic view(InFlight.Rows rows, Map<ShareStream, Integer> heldByStream) {
        lock.lock();
        try {
            return ShareTopicView.of(this, rows, heldByStream);
        } finally {
            lock.unlock();
        }
    }

    Acquired handOut() {
        Acquired a = unhanded.poll();
        a.handedAt = clock.instant();
        lastAsked = a.handedAt;
        out.put(a.key(), a);
        served.add(a.record.partition());
        if (a.message.attempt() > 1) {
            meters.redeliveredAt(a.message.attempt());
        }
        return a;
    }

    /**
     * Under the lock: a topic with no consumer and no client left is gone (its slot of the instance's groups is
     * given back); the next request makes a new one.
     */
    void goneIfUnused() {
        if (!gone && pool.isEmpty() && waiting.isEmpty() && streams.isEmpty()) {
            turns.goneNow(PixyException.shuttingDown());
        }
    }

    /** Under the lock: answers every parked request {@code answer}. */
    void failWaiting(PixyException answer) {
        waiting.failAll(answer);
    }
}
