package io.kafkapixy.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/**
 * A closed-loop load: {@code concurrency} platform threads, each sending its next request as soon as the previous one
 * is answered (what a pool of synchronous clients does). The first {@code warmup} is not counted; a request is
 * counted when it starts and ends inside the measured window, so requests in flight at either edge are left out.
 * A run ends after {@code duration}, or earlier through {@link #stopEarly()} (e.g. when a consumed topic runs dry),
 * in which case the window ends there.
 */
final class ClosedLoop {

    enum Outcome {
        /** The request did what was asked (a message produced, accepted or consumed): counted and timed. */
        OK,
        /** A legitimate empty answer (a long poll that timed out): counted apart, not timed. */
        EMPTY,
        /** Anything else. */
        ERROR
    }

    /** One client of the loop; used by one thread only. */
    interface Worker {
        /** One request; an exception (e.g. {@link Unexpected}) counts as {@link Outcome#ERROR}. */
        Outcome call() throws Exception;

        /** Called once after the loop, on the worker's thread (e.g. to ack what it consumed last). */
        default void finish() throws Exception {
        }
    }

    /** An answer that is neither success nor a legitimate empty one, e.g. an unexpected HTTP status. */
    static final class Unexpected extends Exception {
        Unexpected(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * What a run measured.
     *
     * @param ok       requests that succeeded inside the window
     * @param totalOk  requests that succeeded at any time, warm-up included
     * @param seconds  length of the measured window (0 or less if the run stopped during warm-up)
     */
    record Result(int concurrency, long ok, long empty, long errors, long totalOk, double seconds,
                  LatencyRecorder latency, String firstError, boolean stoppedEarly, CpuMeter.Usage cpu) {

        double rate() {
            return seconds > 0 ? ok / seconds : Double.NaN;
        }
    }

    private final int concurrency;
    private final Duration warmup;
    private final Duration duration;
    private final AtomicLong stopAt = new AtomicLong(Long.MAX_VALUE);
    private volatile long measureStart;
    private Runnable atMeasureStart = () -> { };
    private final CpuMeter cpu;
    private volatile CpuMeter.Snapshot cpuAtStart;

    ClosedLoop(int concurrency, Duration warmup, Duration duration, CpuMeter cpu) {
        this.concurrency = concurrency;
        this.warmup = warmup;
        this.duration = duration;
        this.cpu = cpu;
    }

    /** Runs {@code action} on its own thread when the measured window opens (e.g. to read Kafka's end offsets). */
    ClosedLoop atMeasureStart(Runnable action) {
        this.atMeasureStart = action;
        return this;
    }

    /** Ends the run now; thread-safe. */
    void stopEarly() {
        stopAt.accumulateAndGet(System.nanoTime(), Math::min);
    }

    long measureStartNanos() {
        return measureStart;
    }

    Result run(IntFunction<Worker> workers) throws InterruptedException {
        long start = System.nanoTime();
        measureStart = start + warmup.toNanos();
        long deadline = measureStart + duration.toNanos();
        AtomicLong ok = new AtomicLong();
        AtomicLong empty = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicLong totalOk = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        List<LatencyRecorder> latencies = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        Thread opener = Thread.ofPlatform().daemon().name("measure-start").start(() -> {
            try {
                sleepUntil(measureStart);
                cpuAtStart = cpu.snapshot();
                if (stopAt.get() > System.nanoTime()) {
                    atMeasureStart.run();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        for (int i = 0; i < concurrency; i++) {
            Worker worker = workers.apply(i);
            LatencyRecorder latency = new LatencyRecorder();
            latencies.add(latency);
            threads.add(Thread.ofPlatform().daemon().name("load-" + i).start(() -> {
                long mine = 0;
                long myEmpty = 0;
                long myErrors = 0;
                long myTotal = 0;
                while (true) {
                    long end = Math.min(deadline, stopAt.get());
                    long t0 = System.nanoTime();
                    if (t0 >= end) {
                        break;
                    }
                    Outcome outcome;
                    try {
                        outcome = worker.call();
                    } catch (Exception e) {
                        firstError.compareAndSet(null, describe(e));
                        outcome = Outcome.ERROR;
                    }
                    long t1 = System.nanoTime();
                    boolean inWindow = t0 >= measureStart && t1 <= Math.min(deadline, stopAt.get());
                    switch (outcome) {
                        case OK -> {
                            myTotal++;
                            if (inWindow) {
                                mine++;
                                latency.record(t1 - t0);
                            }
                        }
                        case EMPTY -> myEmpty += inWindow ? 1 : 0;
                        case ERROR -> {
                            myErrors += inWindow ? 1 : 0;
                            // a failing server must not turn the loop into a busy spin
                            pause();
                        }
                    }
                }
                try {
                    worker.finish();
                } catch (Exception e) {
                    firstError.compareAndSet(null, "finish: " + describe(e));
                }
                ok.addAndGet(mine);
                empty.addAndGet(myEmpty);
                errors.addAndGet(myErrors);
                totalOk.addAndGet(myTotal);
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        // the workers stop within one request of the window's end; close enough for an average
        CpuMeter.Snapshot cpuAtEnd = cpu.snapshot();
        opener.interrupt();
        opener.join();
        CpuMeter.Usage usage = cpuAtStart == null ? CpuMeter.Usage.UNKNOWN
                : CpuMeter.between(cpuAtStart, cpuAtEnd);
        LatencyRecorder all = new LatencyRecorder();
        latencies.forEach(all::add);
        long windowEnd = Math.min(deadline, stopAt.get());
        return new Result(concurrency, ok.get(), empty.get(), errors.get(), totalOk.get(),
                (windowEnd - measureStart) / 1e9, all, firstError.get(), stopAt.get() < deadline, usage);
    }

    /** The error and its causes: a transport failure's reason is often only in the cause. */
    static String describe(Throwable e) {
        StringBuilder s = new StringBuilder();
        for (Throwable t = e; t != null && s.length() < 600; t = t.getCause() == t ? null : t.getCause()) {
            String m = t.getMessage();
            s.append(s.isEmpty() ? "" : " <- ").append(t.getClass().getSimpleName()).append(m == null ? "" : ": " + m);
        }
        return s.toString();
    }

    static void sleepUntil(long nanoTime) throws InterruptedException {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0) {
            Thread.sleep(Math.max(1, left / 1_000_000), (int) (left % 1_000_000));
        }
    }

    private static void pause() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
