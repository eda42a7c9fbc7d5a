package io.kafkapixy.testing;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A witness of the times this JVM stood still: a platform thread that asks to wake every millisecond and counts the
 * wake-ups that came at least {@code threshold} late (a collection, a safepoint, the cores taken by other processes).
 * Tests whose outcome depends on the process answering within a few tens of milliseconds use it to tell a broken
 * rule from a stalled machine.
 */
public final class ProcessPauses implements AutoCloseable {

    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final long thresholdNanos;
    private final AtomicInteger count = new AtomicInteger();
    private final AtomicLong longestNanos = new AtomicLong();
    private final Thread thread;
    private volatile boolean stopped;

    private ProcessPauses(long thresholdMillis) {
        this.thresholdNanos = TimeUnit.MILLISECONDS.toNanos(thresholdMillis);
        this.thread = Thread.ofPlatform().daemon().name("process-pauses").start(this::watch);
    }

    /** Starts counting pauses of at least {@code thresholdMillis}. */
    public static ProcessPauses longerThan(long thresholdMillis) {
        return new ProcessPauses(thresholdMillis);
    }

    private void watch() {
        long last = System.nanoTime();
        while (!stopped) {
            LockSupport.parkNanos(TICK_NANOS);
            long now = System.nanoTime();
            long late = now - last - TICK_NANOS;
            if (late >= thresholdNanos) {
                count.incrementAndGet();
                longestNanos.accumulateAndGet(late, Math::max);
            }
            last = now;
        }
    }

    /** How many pauses of at least the threshold were seen so far. */
    public int count() {
        return count.get();
    }

    @Override
    public String toString() {
        return count.get() + " pauses of >= " + TimeUnit.NANOSECONDS.toMillis(thresholdNanos) + " ms, longest "
               + TimeUnit.NANOSECONDS.toMillis(longestNanos.get()) + " ms";
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.join();
    }
}
