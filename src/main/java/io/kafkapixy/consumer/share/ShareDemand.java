package io.kafkapixy.consumer.share;

import java.time.Instant;

import io.kafkapixy.consumer.ConsumerSettings;

/**
 * What the clients of a {@link ShareTopic} want, and how many share consumers serve it, under the topic's lock: when a
 * consumer should fetch, and when the pool grows (ahead of demand, for clients no consumer fetches for, or around
 * consumers stuck behind slow clients).
 */
final class ShareDemand {

    private final ShareTopic t;

    ShareDemand(ShareTopic topic) {
        this.t = topic;
    }

    /**
     * Under the lock: clients wait that neither a record in hand nor a poll under way will serve; or clients wait,
     * a consumer is stuck behind a slow client's record, and the pool is smaller than it takes for every partition
     * to have a consumer besides the stuck ones (the brokers give each partition to ceil(members / partitions)
     * members, so the stuck consumers' other partitions are served only once there are that many more).
     */
    boolean wantsPoll() {
        long demand = demand();
        if (demand <= t.unhanded.size()) {
            return false;
        }
        // a poll under way may bring a batch; one after an empty poll is not counted on where the consumers have
        // partitions of their own (with one partition, every consumer reads the same records: another would find
        // nothing more, and two fetching at once would hand a lone client the partition's records out of order)
        boolean ownPartitions = t.partitions > 1;
        long coming = 0;
        for (ShareWorker w : t.pool) {
            if (w.polling && !(w.dry && ownPartitions)) {
                coming += ConsumerSettings.SHARE_BATCH;
            }
        }
        if (demand > t.unhanded.size() + coming) {
            return true;
        }
        Instant now = t.clock.instant();
        int stuck = 0;
        for (ShareWorker w : t.pool) {
            if (w.stuck(now)) {
                stuck++;
            }
        }
        return stuck > 0 && t.pool.size() < (long) stuck * Math.max(1, t.partitions) + 1;
    }

    /** Under the lock: whether any client waits for a record (a parked request, a stream with credits). */
    boolean any() {
        return demand() > 0;
    }

    private long demand() {
        long demand = t.waiting.demand();
        for (ShareStream s : t.streams) {
            demand += s.demand();
        }
        return demand;
    }

    /**
     * The consumers a topic of several partitions keeps ahead of demand while in use: one more than its partitions,
     * so that the brokers give every partition to at least two of them and a consumer stuck behind a slow client never
     * leaves a partition unserved; new members get partitions only at a heartbeat, seconds later, too late to start
     * one then. A topic of one partition (or not known) keeps none ahead: two consumers fetching from one partition
     * at once would hand a lone client its records out of order; a stuck consumer there gets company on demand.
     */
    int standby() {
        int p = t.partitions;
        return p > 1 ? Math.min(t.config.shareConsumers(), p + 1) : 1;
    }

    /** Under the lock: whether a client asked for a record within {@code subscription_timeout}. */
    boolean inUse(Instant now) {
        return t.lastAsked != null && now.isBefore(t.lastAsked.plus(t.config.subscriptionTimeout()));
    }

    /**
     * Under the lock: a new consumer when the topic in use has fewer than {@link #standby()}, or when records are
     * wanted and every consumer is busy.
     */
    void grow() {
        if (t.shutdownDeadline != null || t.gone || t.failing || t.pool.size() >= t.config.shareConsumers()) {
            return;
        }
        if (t.failedAt != null && t.clock.instant().isBefore(t.failedAt.plus(ShareGroups.FAILURE_HOLD))) {
            // a consumer just failed for good: another would only fail the same way
            return;
        }
        // the first consumer starts for a client that waits; the others join it ahead of demand
        if (!t.pool.isEmpty() && t.pool.size() < standby() && inUse(t.clock.instant())) {
            start();
            return;
        }
        if (!wantsPoll()) {
            return;
        }
        for (ShareWorker w : t.pool) {
            if (w.held.isEmpty() && !w.polling && !w.failed) {
                return;
            }
        }
        start();
    }

    private void start() {
        ShareWorker w = t.workers.apply(t);
        t.pool.add(w);
        w.start();
    }
}
