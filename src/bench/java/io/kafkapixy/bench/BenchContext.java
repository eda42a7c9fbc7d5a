package io.kafkapixy.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.grpc.ManagedChannel;

/**
 * What the scenarios share: the options, the server under test and its clients, Kafka, the report, and names
 * that are unique to this run (so runs never see each other's topics or groups). Owned by the main method; used from
 * its thread.
 */
final class BenchContext implements AutoCloseable {

    /** Upper bound of the auto-sized consume fill: 400 MB of values, a few seconds to write. */
    static final long MAX_AUTO_FILL = 400_000;
    private static final long MIN_AUTO_FILL = 20_000;
    /** Assumed proxy consume rate when produce-sync did not run to tell what this machine does. */
    private static final double GUESSED_RATE = 8_000;

    final Options options;
    final Target target;
    final Report report;
    final RawKafka kafka;
    final Payloads payloads = new Payloads();
    final ProcessStats stats;
    final CpuMeter cpu;
    final PixyRest rest;
    final PixyGrpc grpc;
    private final ManagedChannel channel;
    private final String runId = Long.toString(System.currentTimeMillis(), 36);
    private final AtomicInteger names = new AtomicInteger();
    private final List<String> topics = new ArrayList<>();
    private FilledTopic filled;

    BenchContext(Options options, Target target, Report report) {
        this.options = options;
        this.target = target;
        this.report = report;
        this.kafka = new RawKafka(target.bootstrap());
        this.stats = new ProcessStats(target);
        this.cpu = new CpuMeter(target.proxyPid());
        this.rest = new PixyRest(target, options.longPoll());
        this.channel = target.newChannel();
        this.grpc = new PixyGrpc(channel, options.longPoll());
    }

    /** A new topic of 4 partitions, created now. */
    String newTopic(String what) throws Exception {
        return newTopics(what, 1).getFirst();
    }

    List<String> newTopics(String what, int count) throws Exception {
        List<String> created = new ArrayList<>();
        int n = names.incrementAndGet();
        for (int i = 0; i < count; i++) {
            created.add("bench-" + runId + "-" + n + "-" + what + (count > 1 ? "-" + i : ""));
        }
        kafka.createTopics(created);
        topics.addAll(created);
        return created;
    }

    /** The benchmark's channel to the proxy's gRPC port, for stubs of any service. */
    ManagedChannel channel() {
        return channel;
    }

    String newGroup(String what) {
        return "bench-" + runId + "-" + names.incrementAndGet() + "-" + what;
    }

    ClosedLoop loop(int concurrency) {
        return new ClosedLoop(concurrency, options.warmup(), options.duration(), cpu);
    }

    /** Adds a row for a closed-loop run and says so on stderr, so a long run shows its progress. */
    Report.Row record(String scenario, String key, String label, ClosedLoop.Result result) {
        Report.Row row = report.add(scenario, key, label).result(result);
        progress(row);
        return row;
    }

    void progress(Report.Row row) {
        List<String> parts = new ArrayList<>();
        if (row.error != null) {
            parts.add("FAILED: " + row.error);
        }
        if (!Double.isNaN(row.rate)) {
            parts.add(String.format("%,.0f msgs/s", row.rate) + report.versus(row).map(v -> " = " + v).orElse(""));
        }
        if (row.latency != null && row.latency.count() > 0) {
            parts.add(String.format("p50 %.2f ms, p99 %.2f ms", row.p(50), row.p(99)));
        }
        if (row.cpu != null) {
            parts.add(row.cpu.describe());
        }
        parts.addAll(row.notes);
        progress("  " + row.label + ": " + String.join("; ", parts));
    }

    static void progress(String line) {
        System.err.println(line);
        System.err.flush();
    }

    /**
     * The topic the consume scenarios read, filled on first use. Its size covers the fastest proxy rate measured
     * so far (three times over) for warm-up plus duration, so a run rarely drains it; a run that does reports the rate up
     * to that point.
     */
    FilledTopic filledTopic() throws Exception {
        if (filled != null) {
            return filled;
        }
        long count = options.fill();
        if (count == 0) {
            double rate = 0;
            for (String key : List.of("produce-sync.grpc.c16", "produce-sync.grpc.c64", "produce-sync.rest.c16",
                    "produce-sync.rest.c64")) {
                rate = Math.max(rate, report.rate(key).orElse(0.0));
            }
            if (rate == 0) {
                rate = GUESSED_RATE;
            }
            double seconds = (options.warmup().toMillis() + options.duration().toMillis()) / 1000.0;
            count = Math.clamp((long) (3 * rate * seconds), MIN_AUTO_FILL, MAX_AUTO_FILL);
        }
        String topic = newTopic("filled");
        long start = System.nanoTime();
        kafka.fill(topic, count, payloads);
        double took = (System.nanoTime() - start) / 1e9;
        progress(String.format("  filled %s with %,d messages of %d bytes in %.1f s (%,.0f msgs/s)", topic, count,
                Payloads.SIZE, took, count / took));
        report.setting("consumeFillMessages", count);
        filled = new FilledTopic(topic, count);
        return filled;
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        rest.close();
        stats.close();
        if (!target.ownProxy() && !options.keepTopics() && !topics.isEmpty()) {
            // On someone else's cluster, leave nothing behind (the embedded broker's data goes away with it). The
            // server's groups may still be subscribed to these topics until their subscription_timeout.
            try {
                kafka.deleteTopics(topics);
            } catch (Exception e) {
                progress("could not delete the bench topics: " + e);
            }
        }
        kafka.close();
    }
}
