package io.kafkapixy.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;

/**
 * The share consumers' side of a {@link ShareTopic}, under its lock: what each consumer does next, what its polls
 * brought, what the broker answered its settlements, and when it leaves. Records whose lock ran out, whose nack delay
 * passed, or that are still out at a shutdown's deadline are released here.
 */
final class ShareTurns {

    /** How long a consumer waits at most before it looks at its locks and its idleness again. */
    static final Duration IDLE_CHECK = Duration.ofMillis(500);

    private final ShareTopic t;

    ShareTurns(ShareTopic topic) {
        this.t = topic;
    }

    /** What consumer {@code w} does next; waits until there is something. */
    ShareTurn nextTurn(ShareWorker w) throws InterruptedException {
        t.lock.lock();
        try {
            while (true) {
                Instant now = t.clock.instant();
                releaseOverdue(w, now);
                List<Acquired> settled = new ArrayList<>();
                w.held.removeIf(a -> a.settlement != null && settled.add(a));
                if (!settled.isEmpty()) {
                    ShareTurn turn = ShareTurn.settle(settled);
                    w.unsent |= !turn.sendNow();
                    return turn;
                }
                if (w.held.isEmpty()) {
                    if (t.shutdownDeadline != null || w.failed) {
                        return leave(w);
                    }
                    if (t.wantsPoll()) {
                        t.polling++;
                        w.polling = true;
                        w.idleSince = null;
                        w.unsent = false;
                        // clients may still wait that this poll will not serve: the next consumer starts now
                        t.grow();
                        return ShareTurn.POLL;
                    }
                    if (w.idleSince == null) {
                        w.idleSince = now;
                    }
                    if (!now.isBefore(w.idleSince.plus(t.config.subscriptionTimeout()))) {
                        return leave(w);
                    }
                }
                if (w.unsent) {
                    // no poll comes next to carry what was acknowledged: it goes now, not after the lock ran out
                    w.unsent = false;
                    return ShareTurn.FLUSH;
                }
                t.changed.awaitNanos(Math.max(1, waitFor(w, now).toNanos()));
            }
        } finally {
            t.lock.unlock();
        }
    }

    private ShareTurn leave(ShareWorker w) {
        t.pool.remove(w);
        boolean unused = t.waiting.isEmpty() && t.streams.isEmpty();
        if (t.pool.isEmpty() && !t.gone && (unused || t.shutdownDeadline != null)) {
            goneNow(PixyException.shuttingDown());
        } else {
            t.grow();
        }
        return ShareTurn.EXIT;
    }

    /** Under the lock: no consumer is left and none will come; the topic's clients are answered {@code answer}. */
    void goneNow(PixyException answer) {
        t.gone = true;
        t.failWaiting(answer);
        t.streamDesk.endStreams(answer);
        t.meters.remove();
        t.onGone.run();
    }

    /** How long {@code w} may sleep before something of its own comes due. */
    private Duration waitFor(ShareWorker w, Instant now) {
        Duration wait = IDLE_CHECK;
        for (Acquired a : w.held) {
            Instant due = a.releaseAt != null && a.releaseAt.isBefore(a.lockDeadline) ? a.releaseAt : a.lockDeadline;
            Duration d = Duration.between(now, due);
            if (d.compareTo(wait) < 0) {
                wait = d;
            }
        }
        return wait;
    }

    /** Records of {@code w} whose lock ran out or nack delay passed, and at a shutdown's deadline all it holds. */
    private void releaseOverdue(ShareWorker w, Instant now) {
        boolean stop = t.shutdownDeadline != null && !now.isBefore(t.shutdownDeadline);
        for (Acquired a : w.held) {
            if (a.settlement != null) {
                continue;
            }
            boolean expired = !now.isBefore(a.lockDeadline);
            boolean nackDue = a.releaseAt != null && !now.isBefore(a.releaseAt);
            if (expired || nackDue || stop) {
                a.settlement = AcknowledgeType.RELEASE;
                a.lockExpired = expired;
                t.out.remove(a.key(), a);
                t.unhanded.remove(a);
                if (a.stream != null) {
                    a.stream.released(a);
                }
                if (expired) {
                    t.meters.lockExpired();
                }
            }
        }
        t.reportOldest();
    }

    /** A poll of {@code w} returned: its records go to the waiting clients, oldest first. */
    void acquired(ShareWorker w, ConsumerRecords<byte[], byte[]> records, Optional<Integer> lockMs,
                  Instant polledAt) {
        t.lock.lock();
        try {
            t.polling--;
            w.polling = false;
            Instant deadline = polledAt.plus(lockMs.map(ms -> Duration.ofMillis(ms)).orElse(t.config.ackTimeout()));
            Instant now = t.clock.instant();
            for (ConsumerRecord<byte[], byte[]> r : records) {
                Acquired a = new Acquired(w, r, deadline, now);
                w.held.add(a);
                if (t.shutdownDeadline != null) {
                    a.settlement = AcknowledgeType.RELEASE;
                } else {
                    t.unhanded.addLast(a);
                }
            }
            t.dispatch();
        } finally {
            t.lock.unlock();
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
            t.meters.acked();
        } else if (a.settlement == AcknowledgeType.REJECT) {
            t.meters.rejected();
        } else if (!a.lockExpired) {
            t.meters.released();
        }
    }

    /** Settlements that could not be sent: their callers learn why. */
    void unconfirmed(List<Acquired> records, RuntimeException why) {
        records.forEach(a -> a.confirmed.completeExceptionally(why));
    }

    /**
     * A consumer's poll failed: with {@code fatal} it stops, and the topic's clients are answered {@code answer} (the
     * next request starts a consumer again).
     */
    void failed(ShareWorker w, PixyException answer, boolean fatal) {
        t.lock.lock();
        try {
            if (w.polling) {
                t.polling--;
                w.polling = false;
            }
            if (fatal) {
                w.failed = true;
                // no new consumer while the clients are answered: they would only fail the same way
                t.failing = true;
                try {
                    t.failWaiting(answer);
                    t.streamDesk.endStreams(answer);
                } finally {
                    t.failing = false;
                }
            }
            t.changed.signalAll();
        } finally {
            t.lock.unlock();
        }
    }
}
