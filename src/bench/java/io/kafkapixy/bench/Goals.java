package io.kafkapixy.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The performance targets of issues 7 and 17, judged from a report. A target whose figures were not measured (scenario not
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
        goals.add(p99(report));
        goals.add(share(report, "gRPC consume+ack at c=16 >= gRPC sync produce at c=16 (msgs/s)",
                ConsumeScenario.key("grpc", 16), ProduceSyncScenario.key("grpc", 16), 1.0));
        goals.add(capacity(report, "grpc", "gRPC"));
        goals.add(capacity(report, "rest", "REST"));
        goals.add(ready(report));
        goals.add(idleRss(report));
        goals.add(share(report, "idle topics cost the busy topic < 10% of its consume rate",
                IdleTopicsScenario.WITH, IdleTopicsScenario.WITHOUT, 0.90));
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

    private static Goal p99(Report report) {
        String name = "p99 of a single client's sync produce over gRPC within 2 ms of the raw client's p99";
        Optional<Report.Row> grpc = report.row(ProduceSyncScenario.key("grpc", 1));
        Optional<Report.Row> raw = report.row(ProduceSyncScenario.key("raw", 1));
        if (grpc.isEmpty() || raw.isEmpty() || Double.isNaN(grpc.get().p(99)) || Double.isNaN(raw.get().p(99))) {
            return new Goal(name, null, "not measured");
        }
        double delta = grpc.get().p(99) - raw.get().p(99);
        return new Goal(name, delta <= 2.0, String.format("gRPC p99 %.2f ms vs raw %.2f ms (%+.2f ms)",
                grpc.get().p(99), raw.get().p(99), delta));
    }

    /** Peak RSS of a sidecar under load (issue 17): the proxy under the deployment's memory limit. */
    static final double CAPACITY_RSS_MIB = 192;
    static final double IDLE_RSS_MIB = 96;
    static final double READY_MILLIS = 1_000;

    private static Goal capacity(Report report, String api, String apiName) {
        String name = String.format("%,d parked long polls over %s all answered within long_polling_timeout + 1 s, "
                                    + "peak RSS <= %.0f MiB", 10_000, apiName, CAPACITY_RSS_MIB);
        Optional<Report.Row> row = report.row("capacity." + api);
        if (row.isEmpty() || row.get().error != null) {
            return new Goal(name, null, "not measured");
        }
        Map<String, Object> x = row.get().extra;
        int parked = ((Number) x.get("parked")).intValue();
        long inTime = ((Number) x.get("answeredInTime")).longValue();
        Map<?, ?> peak = (Map<?, ?>) x.get("peak");
        Object rss = peak.get("rssMiB");
        String detail = String.format("%,d/%,d answered in time, peak RSS %s MiB, heap used %s MiB (proxy under %s)",
                inTime, parked, rss, peak.get("heapUsedMiB"), x.get("proxyMemoryLimit"));
        if (parked < 10_000) {
            detail += String.format("; only %,d parked (--parked), not 10,000", parked);
        }
        Boolean met;
        if (inTime != parked) {
            met = false;
        } else if (rss instanceof Number r) {
            met = r.doubleValue() <= CAPACITY_RSS_MIB && parked >= 10_000;
        } else {
            met = null;
            detail += "; RSS unknown (not the bench's child process)";
        }
        return new Goal(name, met, detail);
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
