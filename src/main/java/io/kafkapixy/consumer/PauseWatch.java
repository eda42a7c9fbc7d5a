package io.kafkapixy.consumer;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Notices when this whole process stood still (SIGSTOP, a stalled VM or container, a very long collector pause): a
 * ticker thread looks at the monotonic clock every {@link #TICK}, and a gap of more than {@link #STILL} between two
 * looks counts as a pause. After a pause nothing in the process can know what happened outside meanwhile (a
 * ZooKeeper session may have expired and its partitions gone to others), and the first thread to run again may be any
 * of them, so the answer is read from the clock, not from a flag the ticker has yet to set: {@link #epochIfAwake}
 * gives no epoch while the last tick is too old, and a new one once the ticker has run after the pause.
 *
 * <p>{@link #STILL} stays below what any ZooKeeper session survives unseen (its client gives up after two thirds of
 * the session timeout, 2 s at the least a server grants), and well above a tick delayed by a busy machine.
 */
public final class PauseWatch {

    static final Duration TICK = Duration.ofMillis(100);
    static final Duration STILL = Duration.ofSeconds(1);

    private final LongSupplier nanoTime;
    private volatile long lastTick;
    /** Written before {@link #lastTick}, so a reader that sees a tick sees the pauses counted up to it. */
    private volatile long pauses;

    private PauseWatch(LongSupplier nanoTime, boolean start) {
        this.nanoTime = nanoTime;
        this.lastTick = nanoTime.getAsLong();
        if (start) {
            Thread.ofPlatform().daemon().name("pause-watch").start(this::run);
        }
    }

    /** A pause is the whole process's: one watch serves every member of every cluster, started on first use. */
    private static final class Process {
        static final PauseWatch WATCH = new PauseWatch(System::nanoTime, true);
    }

    /** The process's watch, its ticker running on the system's monotonic clock; never closed. */
    public static PauseWatch process() {
        return Process.WATCH;
    }

    /** A watch whose ticks the caller makes ({@link #tick()}), on its own clock. For tests. */
    public static PauseWatch manual(LongSupplier nanoTime) {
        return new PauseWatch(nanoTime, false);
    }

    private void run() {
        while (true) {
            LockSupport.parkNanos(TICK.toNanos());
            try {
                tick();
            } catch (RuntimeException e) {
                // never expected; a dead ticker would shut every gate for good
            }
        }
    }

    /** One look at the clock. Only the ticker calls it. */
    public void tick() {
        long now = nanoTime.getAsLong();
        if (now - lastTick > STILL.toNanos()) {
            pauses = pauses + 1;
        }
        lastTick = now;
    }

    /**
     * The number of pauses seen so far, or -1 while the process may be in one it has not counted yet (the last tick
     * is older than {@link #STILL}). Two equal answers mean no pause came between them.
     */
    public long epochIfAwake() {
        long tick = lastTick;
        long seen = pauses;
        return nanoTime.getAsLong() - tick > STILL.toNanos() ? -1 : seen;
    }

}
