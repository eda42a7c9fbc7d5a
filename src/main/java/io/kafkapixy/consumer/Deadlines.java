package io.kafkapixy.consumer;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs an action at an instant of the consumers' clock: the long-poll deadlines of parked requests. It is the only
 * thing a parked request's answer depends on, so that answer comes at its deadline whatever the request's group is
 * doing (being created, joining, rebalancing, its owning thread blocked in Kafka): no deadline waits for a group's
 * thread, and an action only takes its group's lock, which nobody holds while waiting for Kafka.
 */
public interface Deadlines {

    /** A timer that is set; cancelling one that has run does nothing. */
    interface Timer {
        void cancel();
    }

    /** Runs {@code action} at {@code due} (at once when due is past), on the timer's own thread. */
    Timer at(Instant due, Runnable action);

    /** Timers already set still run; no new ones. */
    void shutdown();

    /** One platform thread for all groups of a cluster, measuring time to {@code due} on {@code clock}. */
    static Deadlines onThread(String name, Clock clock) {
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().name(name).daemon().factory());
        timers.setRemoveOnCancelPolicy(true);
        return new Deadlines() {
            @Override
            public Timer at(Instant due, Runnable action) {
                long ttl = Math.max(0, Duration.between(clock.instant(), due).toNanos());
                ScheduledFuture<?> f = timers.schedule(action, ttl, TimeUnit.NANOSECONDS);
                return () -> f.cancel(false);
            }

            @Override
            public void shutdown() {
                timers.shutdown();
            }
        };
    }
}
