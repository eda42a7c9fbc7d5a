package io.kafkapixy.consumer;

import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * Lets a few group members at a time do the work of starting: creating the {@code KafkaConsumer}, looking up where a
 * topic's head is, setting up newly assigned partitions from their committed offsets. After a restart or a deploy
 * every group of an instance comes back at once; hundreds of members doing that work together took the CPU the
 * request threads needed, so long polls that arrived meanwhile were read seconds late (and answered late). The rest
 * of a member's life, waiting for the broker to finish a join included, is not gated, so a slow broker does not make
 * the groups queue.
 *
 * <p>Requests never wait here: they park at once, and their deadlines run on their own timer. Thread-safe.
 */
final class StartGate {

    /** The members of every cluster share the process's CPU, so they share one gate: half the processors. */
    private static final class Process {
        static final StartGate GATE = new StartGate(Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
    }

    /** No limit (tests that drive members themselves). */
    static final StartGate OPEN = new StartGate(Integer.MAX_VALUE);

    private final Semaphore permits;

    StartGate(int atOnce) {
        this.permits = new Semaphore(atOnce, true);
    }

    static StartGate process() {
        return Process.GATE;
    }

    /** Runs {@code work} once a place is free, waiting for it if need be (uninterruptibly: the work must happen). */
    <T> T through(Supplier<T> work) {
        permits.acquireUninterruptibly();
        try {
            return work.get();
        } finally {
            permits.release();
        }
    }

    void through(Runnable work) {
        through(() -> {
            work.run();
            return null;
        });
    }
}
