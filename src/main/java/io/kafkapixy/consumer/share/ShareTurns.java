package io.kafkapixy.consumer.share;


import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;

/**
 * The share consumers' side of a {@link ShareTopic}, under its lock: what each consumer does next, what its polls
 * brought, what the broker answered its settlements and renewals, and when it leaves.
 *
 * <p>A consumer fetches a batch of records and fetches again once every record of the batch is settled. Meanwhile
 * the records wait for clients here and go out to them; the broker's lock on each is renewed before it runs out while
 * the record is kept (waiting, or out with a client whose {@code ack_timeout} has not run out). A record out with a
 * client is released when its {@code ack_timeout} has passed since it was handed out, a nacked one when its delay has
 * passed, records no client asked for during {@code subscription_timeout} are released, and at a shutdown's deadline
 * everything still held.
 */
final class ShareTurns {

    /** How long a consumer waits at most before it looks at its locks and its idleness again. */
    static final Duration IDLE_CHECK = Duration.ofMillis(500);
    /**
     * How long acknowledgements nobody waits for (auto-acks, acks riding on a request or a stream) may wait for the
     * batch's last record to be settled, so that the next fetch carries them, before they are sent alone.
     */
    static final Duration FLUSH_DELAY = Duration.ofMillis(100);

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
                    ShareTurn.Settle turn = settle(w, settled, now);
                    if (turn != null) {
                        return turn;
                    }
                    continue;
                }
                if (w.held.isEmpty()) {
                    if (t.shutdownDeadline != null || w.failed) {
                        return leave(w);
                    }
                    // a new consumer polls once to join the group, whether or not a client waits
                    boolean join = !w.joined;
                    if (join || t.demand.wantsPoll()) {
                        t.polling++;
                        w.polling = true;
                        w.idleSince = null;
                        w.unsentSince = null;
                        return join ? ShareTurn.JOIN : ShareTurn.POLL;
                    }
                    if (w.unsentSince != null) {
                        // no fetch comes next to carry what was acknowledged: it goes now
                        w.unsentSince = null;
                        return ShareTurn.FLUSH;
                    }
                    if (idleFor(w, now).compareTo(t.config.subscriptionTimeout()) >= 0) {
                        return leave(w);
                    }
                } else {
                    if (w.unsentSince != null && !now.isBefore(w.unsentSince.plus(FLUSH_DELAY))) {
                        w.unsentSince = null;
                        return ShareTurn.FLUSH;
                    }
                    if (unclaimedFor(w, now).compareTo(t.config.subscriptionTimeout()) >= 0) {
                        // nobody asked for these during subscription_timeout: they go back to the broker
                        w.held.forEach(a -> {
                            if (!t.letters.instead(a)) {
                                release(a, false);
                            }
                        });
                        continue;
                    }
                    if (w.held.stream().anyMatch(a -> a.renewDue(now, t.config.ackTimeout()))) {
                        return new ShareTurn.Renew(List.copyOf(w.held));
                    }
                }
                // a consumer held up by a slow client may want company by now
                t.demand.grow();
                t.changed.awaitNanos(Math.max(1, waitFor(w, now).toNanos()));
            }
        } finally {
            t.lock.unlock();
        }
    }

    /**
     * The settle turn for {@code settled}: those the consumer no longer has in flight are answered here and left out;
     * null when none is left.
     */
    private ShareTurn.Settle settle(ShareWorker w, List<Acquired> settled, Instant now) {
        List<Acquired> toSend = new ArrayList<>(settled.size());
        for (Acquired a : settled) {
            if (a.lost) {
                a.confirmed.completeExceptionally(
                        new org.apache.kafka.common.errors.InvalidRecordStateException("the broker's lock ran out"));
            } else {
                toSend.add(a);
            }
        }
        if (toSend.isEmpty()) {
            return null;
        }
        ShareTurn.Settle turn = ShareTurn.Settle.of(toSend);
        if (!turn.sendNow() && w.unsentSince == null) {
            w.unsentSince = now;
        }
        return turn;
    }

    /**
     * How long {@code w}, holding nothing, has had nothing to fetch for: no client waited, none asked here. Under the
     * lock.
     */
    private Duration idleFor(ShareWorker w, Instant now) {
        if (t.demand.any() || w.polling) {
            w.idleSince = null;
            return Duration.ZERO;
        }
        if (w.idleSince == null) {
            w.idleSince = now;
        }
        Instant since = t.lastAsked != null && t.lastAsked.isAfter(w.idleSince) ? t.lastAsked : w.idleSince;
        return Duration.between(since, now);
    }

    /**
     * How long no client has asked for a record here while all {@code w} holds waits for one: zero while a client
     * waits, or has a record of {@code w} out or nacked. Under the lock.
     */
    private Duration unclaimedFor(ShareWorker w, Instant now) {
        if (t.demand.any()) {
            return Duration.ZERO;
        }
        Instant since = null;
        for (Acquired a : w.held) {
            if (a.handedAt != null || a.releaseAt != null || a.lettering) {
                return Duration.ZERO;
            }
            since = since == null || a.acquiredAt.isAfter(since) ? a.acquiredAt : since;
        }
        if (t.lastAsked != null && (since == null || t.lastAsked.isAfter(since))) {
            since = t.lastAsked;
        }
        return since == null ? Duration.ZERO : Duration.between(since, now);
    }

    /**
     * The thread of {@code w} ended, however: if it did not leave through its last turn (an unexpected failure), it
     * leaves now, and what it held is no longer this instance's (closing its consumer gave it back to the broker).
     */
    void exited(ShareWorker w) {
        t.lock.lock();
        try {
            if (!t.pool.contains(w)) {
                return;
            }
            for (Acquired a : w.held) {
                a.lost = true;
                release(a, true);
                a.confirmed.completeExceptionally(
                        new org.apache.kafka.common.errors.InvalidRecordStateException("the share consumer stopped"));
            }
            w.held.clear();
            if (w.polling) {
                t.polling--;
                w.polling = false;
            }
            leave(w);
            t.changed.signalAll();
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
            t.demand.grow();
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
        Instant next = now.plus(IDLE_CHECK);
        if (w.unsentSince != null) {
            next = earlier(next, w.unsentSince.plus(FLUSH_DELAY));
        }
        for (Acquired a : w.held) {
            next = earlier(next, a.lockDeadline);
            Instant release = a.releaseDue(t.config.ackTimeout());
            if (release != null) {
                next = earlier(next, release);
            }
            // a renewal only where the lock would run out before the record's release, and not one already due
            if ((release == null || release.isAfter(a.lockDeadline)) && a.renewAt().isAfter(now)) {
                next = earlier(next, a.renewAt());
            }
            if (a.handedAt != null && a.settlement == null) {
                Instant stuck = a.handedAt.plus(ShareWorker.STUCK_AFTER);
                if (stuck.isAfter(now)) {
                    next = earlier(next, stuck);
                }
            }
        }
        return Duration.between(now, next);
    }

    private static Instant earlier(Instant a, Instant b) {
        return b.isBefore(a) ? b : a;
    }

    /**
     * Releases the records of {@code w} whose client's {@code ack_timeout} passed, whose nack delay passed or whose
     * lock ran out, and at a shutdown's deadline all it holds.
     */
    private void releaseOverdue(ShareWorker w, Instant now) {
        boolean stop = t.shutdownDeadline != null && !now.isBefore(t.shutdownDeadline);
        for (Acquired a : w.held) {
            if (a.settlement != null) {
                continue;
            }
            Instant release = a.releaseDue(t.config.ackTimeout());
            boolean lockGone = !now.isBefore(a.lockDeadline);
            boolean due = release != null && !now.isBefore(release);
            if (!lockGone && (due || stop) && t.letters.instead(a)) {
                continue;
            }
            if (lockGone || due || stop) {
                release(a, lockGone || (due && a.releaseAt == null));
            }
        }
        t.reportOldest();
    }

    /** Under the lock: {@code a} goes back to the broker; {@code expired}: its client's time or its lock ran out. */
    private void release(Acquired a, boolean expired) {
        if (a.settlement != null) {
            return;
        }
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

    /**
     * A poll of {@code w} returned: records it holds already (their renewal brought them back) have their lock
     * renewed from {@code polledAt}; new ones go to the waiting clients, oldest first.
     */
    void acquired(ShareWorker w, ConsumerRecords<byte[], byte[]> records, Optional<Integer> lockMs,
                  Instant polledAt) {
        t.lock.lock();
        try {
            if (w.polling) {
                t.polling--;
                w.polling = false;
                // a poll that brought nothing says this consumer's partitions are empty: its next poll is not
                // counted on to serve waiting clients (ShareDemand)
                w.dry = records.isEmpty();
            }
            w.joined = true;
            Duration lock = lockMs.map(ms -> Duration.ofMillis(ms)).orElse(t.config.ackTimeout());
            Instant now = t.clock.instant();
            Map<Acquired.Key, Acquired> held = new HashMap<>();
            w.held.forEach(a -> held.put(a.key(), a));
            for (ConsumerRecord<byte[], byte[]> r : records) {
                Acquired known = held.get(new Acquired.Key(r.partition(), r.offset()));
                if (known != null) {
                    known.lockDuration = lock;
                    known.lockDeadline = polledAt.plus(lock);
                    continue;
                }
                Acquired a = new Acquired(w, r, lock, polledAt, now);
                w.held.add(a);
                if (t.shutdownDeadline != null) {
                    if (!t.letters.instead(a)) {
                        a.settlement = AcknowledgeType.RELEASE;
                    }
                } else {
                    t.unhanded.add(a);
                }
            }
            t.dispatch();
        } finally {
            t.lock.unlock();
        }
    }

    /**
     * A renewal of {@code renewed} was sent at {@code sentAt} and the consumer polled them back: those the poll did
     * not bring back are no longer this instance's (the broker refused their renewal), and each one brought back is
     * locked anew from {@code sentAt}.
     */
    void renewed(ShareWorker w, List<Acquired> renewed, ConsumerRecords<byte[], byte[]> back, Optional<Integer> lockMs,
                 Instant sentAt) {
        java.util.Set<Acquired.Key> returned = new java.util.HashSet<>();
        back.forEach(r -> returned.add(new Acquired.Key(r.partition(), r.offset())));
        t.lock.lock();
        try {
            for (Acquired a : renewed) {
                if (!returned.contains(a.key()) && w.held.contains(a)) {
                    a.lost = true;
                    if (a.settlement == null) {
                        release(a, a.releaseAt == null);
                    }
                }
            }
            t.changed.signalAll();
        } finally {
            t.lock.unlock();
        }
        acquired(w, back, lockMs, sentAt);
    }

    /**
     * A consumer's poll failed: with {@code fatal} it stops, and the topic's clients are answered {@code answer} (the
     * next request starts a consumer again).
     */
    void failed(ShareWorker w, PixyException answer, boolean fatal, boolean unsent) {
        t.lock.lock();
        try {
            if (w.polling) {
                t.polling--;
                w.polling = false;
            }
            if (unsent && w.unsentSince == null) {
                // the failed poll may not have carried what was acknowledged: it goes with a flush
                w.unsentSince = t.clock.instant();
            }
            if (fatal) {
                w.failed = true;
                t.failedAt = t.clock.instant();
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
