package io.kafkapixy.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.kafkapixy.testing.PixyProcess;

/**
 * The performance targets, judged from a report. A target whose figures were not measured (scenario not
 * run, or failed) is neither met nor missed: {@code met} is null.
 */
final class Goals {

    /** One target: met (true/false/null for "not measured") and the figures behind the verdict. */
    record Goal(String name, Boolean met, String detail) {
    }

    private Goals() {
    }

    static List<Goal> evaluate(Report report) {
        List<Goal> goals = new ArrayList<>();
        goals.add(share(report, "gRPC sync produce at c=64 >= 70% of the raw per-message sync KafkaProducer at c=64",
                ProduceSyncScenario.key("grpc", 64), ProduceSyncScenario.key("raw", 64), 0.70));
        goals.add(share(report, "REST sync produce at c=64 >= 50% of the raw per-message sync KafkaProducer at c=64",
                ProduceSyncScenario.key("rest", 64), ProduceSyncScenario.key("raw", 64), 0.50));
        goals.add(latency(report, 99, 2.0));
        goals.add(latency(report, 50, 0.5));
        String restAtOne = ProduceSyncScenario.key("rest", 1);
        goals.add(cpuAtMost(report, "gRPC sync produce at c=1 costs the proxy at most REST's CPU per message at c=1",
                ProduceSyncScenario.key("grpc", 1), micros(report, restAtOne),
                report.row(restAtOne).map(r -> r.label).orElse(restAtOne)));
        goals.add(cpuAtMost(report, "gRPC sync produce at c=64 costs the proxy at most 30 µs of CPU per message",
                ProduceSyncScenario.key("grpc", 64), 30, "the limit"));
        goals.add(share(report, "gRPC consume+ack at c=16 >= gRPC sync produce at c=16 (msgs/s)",
                ConsumeScenario.key("grpc", 16), ProduceSyncScenario.key("grpc", 16), 1.0));
        for (int parked : report.parkedRuns()) {
            goals.add(capacity(report, "grpc", "gRPC", parked));
            goals.add(capacity(report, "rest", "REST", parked));
        }
        goals.add(idleGroup(report));
        goals.add(ready(report));
        goals.add(idleRss(report));
        goals.add(share(report, "idle topics cost the busy topic < 10% of its consume rate",
                IdleTopicsScenario.WITH, IdleTopicsScenario.WITHOUT, 0.90));
        goals.add(joinBurst(report, false));
        goals.add(joinBurst(report, true));
        return goals;
    }

    private static Goal share(Report report, String name, String key, String baselineKey, double atLeast) {
        Optional<Double> rate = report.rate(key);
        Optional<Double> base = report.rate(baselineKey);
        if (rate.isEmpty() || base.isEmpty() || base.get() <= 0) {
            return new Goal(name, null, "not measured");
        }
        double share = rate.get() / base.get();
        return new Goal(name, share >= atLeast, String.format("%,.0f vs %,.0f msgs/s = %.0f%% (needs %.0f%%)",
                rate.get(), base.get(), 100 * share, 100 * atLeast));
    }

    /** A single client's sync produce over gRPC at {@code percentile} within {@code withinMs} of the raw client's. */
    private static Goal latency(Report report, int percentile, double withinMs) {
        String name = String.format("p%d of a single client's sync produce over gRPC within %s ms of the raw client's "
                + "p%d", percentile, withinMs % 1 == 0 ? String.format("%.0f", withinMs) : withinMs, percentile);
        Optional<Report.Row> grpc = report.row(ProduceSyncScenario.key("grpc", 1));
        Optional<Report.Row> raw = report.row(ProduceSyncScenario.key("raw", 1));
        if (grpc.isEmpty() || raw.isEmpty() || Double.isNaN(grpc.get().p(percentile))
            || Double.isNaN(raw.get().p(percentile))) {
            return new Goal(name, null, "not measured");
        }
        double delta = grpc.get().p(percentile) - raw.get().p(percentile);
        return new Goal(name, delta <= withinMs, String.format("gRPC p%d %.2f ms vs raw %.2f ms (%+.2f ms)",
                percentile, grpc.get().p(percentile), raw.get().p(percentile), delta));
    }

    /** The proxy's CPU per message in the run {@code key}; NaN when not measured (a proxy not the bench's child). */
    private static double micros(Report report, String key) {
        return report.row(key).map(Report.Row::proxyMicrosPerMessage).orElse(Double.NaN);
    }

    /** The proxy's CPU per message in the run {@code key} at most {@code limitMicros} ({@code what} the limit is). */
    private static Goal cpuAtMost(Report report, String name, String key, double limitMicros, String what) {
        double micros = micros(report, key);
        if (Double.isNaN(micros) || Double.isNaN(limitMicros)) {
            return new Goal(name, null, "not measured");
        }
        return new Goal(name, micros <= limitMicros, String.format("%.0f µs per message vs %.0f µs (%s)", micros,
                limitMicros, what));
    }

    /**
     * Groups arriving at a cold instance ({@link JoinBurstScenario}): every long poll answered "long polling timeout"
     * within {@code long_polling_timeout} + {@value JoinBurstScenario#LATE_MILLIS} ms of being sent, none refused.
     */
    private static Goal joinBurst(Report report, boolean withRest) {
        String name = String.format("%d new groups x %d gRPC long polls at a cold instance%s: every one answered "
                                    + "within long_polling_timeout + %d ms", JoinBurstScenario.GROUPS,
                JoinBurstScenario.PER_GROUP, withRest ? String.format(", %,d REST long polls beside (them too)",
                        JoinBurstScenario.REST) : "", JoinBurstScenario.LATE_MILLIS);
        Optional<Report.Row> row = report.row(JoinBurstScenario.key(withRest));
        if (row.isEmpty() || row.get().error != null || !row.get().extra.containsKey("allInTime")) {
            return new Goal(name, null, "not measured");
        }
        Map<String, Object> x = row.get().extra;
        String detail = "gRPC " + x.get("grpc") + (withRest ? "; REST " + x.get("rest") : "");
        return new Goal(name, (Boolean) x.get("allInTime"), detail);
    }

    /** The memory limit of the Deployment the proxy runs under (k8s/deployment.yaml). */
    static final double MEMORY_LIMIT_MIB = Double.parseDouble(PixyProcess.CONTAINER_MEMORY.replace("Mi", ""));
    /** Up to this many groups every long poll is answered in time; beyond, 99% or a refusal at once. */
    static final int ALL_IN_TIME_GROUPS = 60;
    static final double IDLE_GROUP_RSS_MIB = 1.5;
    static final double IDLE_GROUP_THREADS = 2;
    static final double IDLE_RSS_MIB = 96;
    static final double READY_MILLIS = 1_000;

    /**
     * Many groups on one instance: up to {@value #ALL_IN_TIME_GROUPS} groups every long poll answered within
     * {@code long_polling_timeout} + 1 s; beyond, at least 99%, or every poll that does not fit refused (429 /
     * RESOURCE_EXHAUSTED) and every accepted one in time; the peak RSS within the memory limit.
     */
    private static Goal capacity(Report report, String api, String apiName, int parked) {
        Optional<Report.Row> row = report.row(CapacityScenario.key(api, parked));
        String name = String.format("%s %,d parked long polls in groups: ", apiName, parked);
        if (row.isEmpty() || row.get().error != null) {
            return new Goal(name + "answered in time", null, "not measured");
        }
        Map<String, Object> x = row.get().extra;
        int groups = ((Number) x.get("groups")).intValue();
        long inTime = ((Number) x.get("answeredInTime")).longValue();
        long refused = ((Number) x.get("refused")).longValue();
        boolean allFit = groups <= ALL_IN_TIME_GROUPS;
        name += allFit ? String.format("%d groups, all answered in time", groups)
                : String.format("%d groups, >= 99%% in time or the rest refused at once", groups);
        name += String.format(", peak RSS <= %.0f MiB", MEMORY_LIMIT_MIB);
        Map<?, ?> peak = (Map<?, ?>) x.get("peak");
        Object rss = peak.get("rssMiB");
        String detail = String.format("%,d/%,d answered in time, %,d refused, peak RSS %s MiB, threads %s (proxy "
                                      + "under %s)", inTime, parked, refused, rss, peak.get("osThreads"),
                x.get("proxyMemoryLimit"));
        boolean answers = allFit ? inTime == parked
                : inTime >= 0.99 * parked || inTime + refused == parked;
        Boolean met;
        if (!answers) {
            met = false;
        } else if (rss instanceof Number r) {
            met = r.doubleValue() <= MEMORY_LIMIT_MIB;
        } else {
            met = null;
            detail += "; RSS unknown (not the bench's child process)";
        }
        return new Goal(name, met, detail);
    }

    private static Goal idleGroup(Report report) {
        String name = String.format("an idle group costs <= %.1f MiB (live heap + RSS outside the heap) and <= %.0f "
                                    + "threads; %d idle groups "
                                    + "within %.0f MiB", IDLE_GROUP_RSS_MIB, IDLE_GROUP_THREADS,
                CapacityScenario.IDLE_GROUPS, MEMORY_LIMIT_MIB);
        Optional<Report.Row> row = report.row(CapacityScenario.IDLE_KEY).filter(r -> r.error == null);
        if (row.isEmpty() || !(row.get().extra.get("memoryMiBPerGroup") instanceof Number rss)
            || !(row.get().extra.get("threadsPerGroup") instanceof Number threads)) {
            return new Goal(name, null, "not measured");
        }
        Object total = ((Map<?, ?>) row.get().extra.get("after")).get("rssMiB");
        boolean within = total instanceof Number t && t.doubleValue() <= MEMORY_LIMIT_MIB;
        return new Goal(name, rss.doubleValue() <= IDLE_GROUP_RSS_MIB
                              && threads.doubleValue() <= IDLE_GROUP_THREADS && within,
                String.format("%.2f MiB and %.2f threads per group; %s MiB with them", rss.doubleValue(),
                        threads.doubleValue(), total));
    }

    private static Goal ready(Report report) {
        String name = String.format("start-up to /health/ready <= %,.0f ms (with the AOT cache where the JDK has one)",
                READY_MILLIS);
        Optional<Report.Row> row = report.row(FootprintScenario.STARTUP_AOT).filter(r -> r.error == null)
                .or(() -> report.row(FootprintScenario.STARTUP).filter(r -> r.error == null));
        if (row.isEmpty()) {
            return new Goal(name, null, "not measured");
        }
        long ms = ((Number) row.get().extra.get("readyMillis")).longValue();
        return new Goal(name, ms <= READY_MILLIS, String.format("%,d ms (%s)", ms, row.get().label));
    }

    private static Goal idleRss(Report report) {
        String name = String.format("RSS at idle <= %.0f MiB after one session per API", IDLE_RSS_MIB);
        Optional<Double> best = java.util.stream.Stream.of(FootprintScenario.STARTUP, FootprintScenario.STARTUP_AOT)
                .flatMap(k -> report.row(k).filter(r -> r.error == null).stream())
                .map(r -> ((Map<?, ?>) r.extra.get("idle")).get("rssMiB"))
                .filter(Number.class::isInstance).map(v -> ((Number) v).doubleValue())
                .min(Double::compare);
        if (best.isEmpty()) {
            return new Goal(name, null, "not measured");
        }
        return new Goal(name, best.get() <= IDLE_RSS_MIB, String.format("%.0f MiB (the smaller of the two starts)",
                best.get()));
    }
}
