package io.kafkapixy.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The performance targets of issue 7, judged from a report. A target whose figures were not measured (scenario not
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

    private static Goal capacity(Report report, String api, String apiName) {
        String name = String.format("%,d parked long polls over %s in a 512 MiB heap, all answered within "
                                    + "long_polling_timeout + 1 s", 10_000, apiName);
        Optional<Report.Row> row = report.row("capacity." + api);
        if (row.isEmpty()) {
            return new Goal(name, null, "not measured");
        }
        Map<String, Object> x = row.get().extra;
        int parked = ((Number) x.get("parked")).intValue();
        long inTime = ((Number) x.get("answeredInTime")).longValue();
        Object heap = ((Map<?, ?>) x.get("peak")).get("heapUsedMiB");
        boolean ownProxy = ChildProxy.HEAP.equals(x.get("proxyHeapLimit"));
        String detail = String.format("%,d/%,d answered in time, peak heap used %s MiB%s", inTime, parked, heap,
                ownProxy ? " (proxy run with " + ChildProxy.HEAP + ")" : "");
        if (parked < 10_000) {
            detail += String.format("; only %,d parked (--parked), not 10,000", parked);
        }
        boolean answered = inTime == parked;
        Boolean met;
        if (!answered) {
            met = false;
        } else if (heap instanceof Number h) {
            met = h.doubleValue() <= 512;
        } else {
            met = ownProxy ? Boolean.TRUE : null;
            if (!ownProxy) {
                detail += "; heap unknown (no /metrics)";
            }
        }
        return new Goal(name, met, detail);
    }
}
