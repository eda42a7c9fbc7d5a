package io.kafkapixy.consumer;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;

/**
 * One topic of one share group on this instance, under one lock: the parked requests, the records its share consumers
 * acquired (waiting for a client, or out with one until settled), and the pool of those consumers.
 *
 * <p>A share consumer in explicit acknowledgement mode polls again only when every record of its last poll is
 * settled, so one consumer holding a message a client has not acked can hand out nothing else. Each consumer here
 * polls one record at a time, and the pool grows while requests wait that no consumer is polling for, up to
 * {@code share_consumers}: a slow client holds one consumer, the others go on. A consumer that had nothing to do for
 * {@code subscription_timeout} leaves; when the last one has left and nothing waits, the topic is gone and the next
 * request makes a new one.
 *
 * <p>Request threads call {@link #park}, {@link #giveUp}, {@link #returnOffer}, {@link #settle} and
 * {@link #shutdown}; the consumers' threads call {@link #nextTurn}, {@link #acquired}, {@link #confirmed} and
 * {@link #failed}. Nothing under the lock calls Kafka.
 */
final class ShareTopic implements Settler {

    /** How long a consumer waits at most before it looks at its locks and its idleness again. */
    static final Duration IDLE_CHECK = Duration.ofMillis(500);

    final String group;
    final String topic;
    private final ConsumerConfig config;
    private final Clock clock;
    final ConsumerMetrics.Topic meters;
    /** Starts a consumer's thread for this topic. */
    private final Function<ShareTopic, ShareWorker> workers;
    private final Runnable onGone;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    // guarded by lock
    private final ArrayDeque<WaitingRequest> waiting = new ArrayDeque<>();
    private final ArrayDeque<Acquired> unhanded = new ArrayDeque<>();
    private final Map<Acquired.Key, Acquired> out = new HashMap<>();
    private final Set<Integer> served = new HashSet<>();
    private final List<ShareWorker> pool = new ArrayList<>();
    private int polling;
    private boolean gone;
    private Instant shutdownDeadline;

    ShareTopic(String group, String topic, ConsumerConfig config, Clock clock, ConsumerMetrics.Topic meters,
               Function<ShareTopic, ShareWorker> workers, Runnable onGone) {
        this.group = group;
        this.topic = topic;
        this.config = config;
        this.clock = clock;
        this.meters = meters;
        this.workers = workers;
        this.onGone = onGone;
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
            if (waiting.size() > config.channelBufferSize()) {
                meters.request(ConsumerMetrics.Outcome.TOO_MANY_REQUESTS);
                throw PixyException.tooManyRequests();
            }
            WaitingRequest r = new WaitingRequest(arrival.plus(config.longPollingTimeout()), meters, autoAck,
                    receiver);
            waiting.addLast(r);
            dispatch();
            return r;
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
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean returnOffer(ConsumedMessage m) {
        lock.lock();
        try {
            Acquired a = out.get(new Acquired.Key(m.partition(), m.offset()));
            if (a == null || a.settlement != null) {
                return false;
            }
            out.remove(a.key());
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
        return settle(partition, offset, AcknowledgeType.ACCEPT) != null;
    }

    /**
     * Settles a record out with a client: its consumer sends the settlement to the broker. Returns what the broker
     * answers, or null when no such record is out from here (never handed out, settled already, or its lock ran out).
     */
    CompletableFuture<Void> settle(int partition, long offset, AcknowledgeType how) {
        lock.lock();
        try {
            Acquired a = out.remove(new Acquired.Key(partition, offset));
            if (a == null) {
                return null;
            }
            a.settlement = how;
            changed.signalAll();
            return a.confirmed;
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
     * has, and lets those out with clients wait for their acks until {@code shutdown_timeout} from now.
     */
    void shutdown() {
        lock.lock();
        try {
            if (shutdownDeadline == null) {
                shutdownDeadline = clock.instant().plus(config.shutdownTimeout());
            }
            failWaiting(PixyException.shuttingDown());
            Acquired a;
            while ((a = unhanded.pollFirst()) != null) {
                a.settlement = AcknowledgeType.RELEASE;
            }
            changed.signalAll();
            pool.forEach(ShareWorker::wakeup);
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

    /** The consumers still running; their threads end once they have settled what they hold. */
    List<ShareWorker> workers() {
        lock.lock();
        try {
            return List.copyOf(pool);
        } finally {
            lock.unlock();
        }
    }

    /**
     * What consumer {@code w} does next; waits until there is something. Records whose lock ran out are released,
     * and at a shutdown's deadline so are those still out.
     */
    ShareTurn nextTurn(ShareWorker w) throws InterruptedException {
        lock.lock();
        try {
            while (true) {
                Instant now = clock.instant();
                releaseOverdue(w, now);
                List<Acquired> settled = new ArrayList<>();
                w.held.removeIf(a -> a.settlement != null && settled.add(a));
                if (!settled.isEmpty()) {
                    return ShareTurn.settle(settled);
                }
                if (w.held.isEmpty()) {
                    if (shutdownDeadline != null || w.failed) {
                        return leave(w);
                    }
                    if (wantsPoll()) {
                        polling++;
                        w.polling = true;
                        w.idleSince = null;
                        return ShareTurn.POLL;
                    }
                    if (w.idleSince == null) {
                        w.idleSince = now;
                    }
                    if (!now.isBefore(w.idleSince.plus(config.subscriptionTimeout()))) {
                        return leave(w);
                    }
                }
                changed.awaitNanos(Math.max(1, waitFor(w, now).toNanos()));
            }
        } finally {
            lock.unlock();
        }
    }

    private ShareTurn leave(ShareWorker w) {
        pool.remove(w);
        if (pool.isEmpty() && (waiting.isEmpty() || shutdownDeadline != null)) {
            gone = true;
            failWaiting(PixyException.shuttingDown());
            meters.remove();
            onGone.run();
        } else {
            grow();
        }
        return ShareTurn.EXIT;
    }

    /** How long {@code w} may sleep before something of its own comes due. */
    private Duration waitFor(ShareWorker w, Instant now) {
        Duration wait = IDLE_CHECK;
        for (Acquired a : w.held) {
            Duration d = Duration.between(now, a.lockDeadline);
            if (d.compareTo(wait) < 0) {
                wait = d;
            }
        }
        return wait;
    }

    /** Records of {@code w} whose lock ran out, and at a shutdown's deadline all it still holds: released. */
    private void releaseOverdue(ShareWorker w, Instant now) {
        boolean stop = shutdownDeadline != null && !now.isBefore(shutdownDeadline);
        for (Acquired a : w.held) {
            if (a.settlement != null) {
                continue;
            }
            boolean expired = !now.isBefore(a.lockDeadline);
            if (expired || stop) {
                a.settlement = AcknowledgeType.RELEASE;
                a.lockExpired = expired;
                out.remove(a.key());
                unhanded.remove(a);
                if (expired) {
                    meters.lockExpired();
                }
            }
        }
    }

    /** A poll of {@code w} returned: its records wait for the parked requests, oldest first. */
    void acquired(ShareWorker w, ConsumerRecords<byte[], byte[]> records, Optional<Integer> lockMs) {
        lock.lock();
        try {
            polling--;
            w.polling = false;
            Instant deadline = clock.instant().plus(lockMs.map(ms -> Duration.ofMillis(ms))
                    .orElse(config.ackTimeout()));
            for (ConsumerRecord<byte[], byte[]> r : records) {
                Acquired a = new Acquired(w, r, deadline);
                w.held.add(a);
                if (shutdownDeadline != null) {
                    a.settlement = AcknowledgeType.RELEASE;
                } else {
                    unhanded.addLast(a);
                }
            }
            dispatch();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The broker answered the settlements of {@code records}, per partition. */
    void confirmed(List<Acquired> records, Map<TopicIdPartition, Optional<KafkaException>> results) {
        for (Acquired a : records) {
            Optional<KafkaException> error = Optional.empty();
            for (var e : results.entrySet()) {
                if (e.getKey().topic().equals(a.record.topic()) && e.getKey().partition() == a.record.partition()) {
                    error = e.getValue();
                }
            }
            if (error.isPresent()) {
                a.confirmed.completeExceptionally(error.get());
            } else {
                a.confirmed.complete(null);
                if (a.settlement == AcknowledgeType.ACCEPT) {
                    meters.acked();
                } else if (a.settlement == AcknowledgeType.REJECT) {
                    meters.rejected();
                } else if (!a.lockExpired) {
                    meters.released();
                }
            }
        }
    }

    /** Settlements that could not be sent: their callers learn why. */
    void unconfirmed(List<Acquired> records, RuntimeException why) {
        records.forEach(a -> a.confirmed.completeExceptionally(why));
    }

    /**
     * A consumer's poll failed: with {@code fatal} it stops, and the parked requests are answered {@code answer} (the
     * next request starts a consumer again).
     */
    void failed(ShareWorker w, PixyException answer, boolean fatal) {
        lock.lock();
        try {
            if (w.polling) {
                polling--;
                w.polling = false;
            }
            if (fatal) {
                w.failed = true;
                failWaiting(answer);
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: wakes a consumer when records are wanted; adds one when none is free to poll. */
    private void dispatch() {
        Instant now = clock.instant();
        Iterator<WaitingRequest> it = waiting.iterator();
        while (it.hasNext() && !unhanded.isEmpty()) {
            WaitingRequest r = it.next();
            if (!now.isBefore(r.deadline)) {
                it.remove();
                r.result.completeExceptionally(PixyException.longPollTimeout());
                continue;
            }
            if (!r.receiver.canReceive()) {
                continue;
            }
            Acquired a = unhanded.pollFirst();
            it.remove();
            out.put(a.key(), a);
            served.add(a.record.partition());
            if (a.message.attempt() > 1) {
                meters.redeliveredAt(a.message.attempt());
            }
            r.result.complete(a.message);
        }
        grow();
        changed.signalAll();
    }

    /** Under the lock: requests wait that neither a record in hand nor a poll under way will serve. */
    private boolean wantsPoll() {
        int demand = 0;
        for (WaitingRequest r : waiting) {
            if (r.receiver.canReceive()) {
                demand++;
            }
        }
        return demand > unhanded.size() + polling;
    }

    /** Under the lock: a new consumer when records are wanted and every consumer is busy. */
    private void grow() {
        if (shutdownDeadline != null || gone || !wantsPoll() || pool.size() >= config.shareConsumers()) {
            return;
        }
        for (ShareWorker w : pool) {
            if (w.held.isEmpty() && !w.polling && !w.failed) {
                return;
            }
        }
        ShareWorker w = workers.apply(this);
        pool.add(w);
        w.start();
    }

    private void failWaiting(PixyException answer) {
        WaitingRequest r;
        while ((r = waiting.pollFirst()) != null) {
            r.result.completeExceptionally(answer);
        }
    }

    /** Wakes the consumers to look again (tests that move the clock). */
    void poke() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
