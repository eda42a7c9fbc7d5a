package io.kafkapixy.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonGenerator;

/**
 * Everything the run measured, in the order measured: a table for people (stdout) and a JSON document for tools.
 * Each figure with a baseline is shown next to it as a percentage. Filled by the scenarios from the main thread.
 */
final class Report {

    /** From this many cores of the proxy's JIT compilers in a run, its row says so: it measured compiling too. */
    static final double JIT_NOTED_CORES = 0.01;

    /** One measured figure (a run of a scenario), with what it is compared with. */
    static final class Row {
        final String scenario;
        final String key;
        final String label;
        double rate = Double.NaN;
        LatencyRecorder latency;
        long count;
        long errors;
        long empty;
        double seconds = Double.NaN;
        String baselineKey;
        String error;
        CpuMeter.Usage cpu;
        final List<String> notes = new ArrayList<>();
        final Map<String, Object> extra = new LinkedHashMap<>();

        private Row(String scenario, String key, String label) {
            this.scenario = scenario;
            this.key = key;
            this.label = label;
        }

        /** Rate, latency and counts of a closed-loop run; errors and early stops become notes. */
        Row result(ClosedLoop.Result r) {
            rate = r.rate();
            latency = r.latency();
            count = r.ok();
            errors = r.errors();
            empty = r.empty();
            seconds = r.seconds();
            cpu = r.cpu();
            if (cpu != null && cpu.proxyJitCores() >= JIT_NOTED_CORES) {
                note(String.format("proxy JIT %.2f cores", cpu.proxyJitCores()));
            }
            if (r.errors() > 0) {
                note(r.errors() + " errors, first: " + r.firstError());
            } else if (r.firstError() != null) {
                note("error outside the window: " + r.firstError());
            }
            return this;
        }

        Row rate(double perSecond) {
            rate = perSecond;
            return this;
        }

        Row latency(LatencyRecorder recorder) {
            latency = recorder;
            return this;
        }

        Row baseline(String rowKey) {
            baselineKey = rowKey;
            return this;
        }

        Row note(String text) {
            notes.add(text);
            return this;
        }

        Row extra(String name, Object value) {
            extra.put(name, value);
            return this;
        }

        Row failed(String message) {
            error = message;
            return this;
        }

        /** The proxy's CPU time per message in µs over the measured window, NaN when not measured. */
        double proxyMicrosPerMessage() {
            if (cpu == null || Double.isNaN(cpu.proxyCores()) || Double.isNaN(rate) || rate <= 0) {
                return Double.NaN;
            }
            return cpu.proxyCores() * 1e6 / rate;
        }

        double p(double percentile) {
            return latency == null ? Double.NaN : latency.millis(percentile);
        }
    }

    private final List<Row> rows = new ArrayList<>();
    private final Map<String, Object> settings = new LinkedHashMap<>();
    private final Map<String, Object> target = new LinkedHashMap<>();
    private final Instant started = Instant.now();

    Row add(String scenario, String key, String label) {
        Row row = new Row(scenario, key, label);
        rows.add(row);
        return row;
    }

    /** The capacity runs' sizes, from the settings ({@code --parked}). */
    List<Integer> parkedRuns() {
        Object parked = settings.get("parked");
        return parked instanceof List<?> list ? list.stream().map(v -> ((Number) v).intValue()).toList() : List.of();
    }

    Optional<Row> row(String key) {
        return rows.stream().filter(r -> r.key.equals(key) && r.error == null).findFirst();
    }

    /** The measured rate of a row, if it ran and produced one. */
    Optional<Double> rate(String key) {
        return row(key).map(r -> r.rate).filter(r -> !r.isNaN());
    }

    void setting(String name, Object value) {
        settings.put(name, value);
    }

    void target(Map<String, Object> description) {
        target.putAll(description);
    }

    /** "73% of raw" (the raw client's row of the same scenario), or empty when there is no baseline or either rate is missing. */
    Optional<String> versus(Row row) {
        if (row.baselineKey == null || Double.isNaN(row.rate)) {
            return Optional.empty();
        }
        return row(row.baselineKey).filter(b -> !Double.isNaN(b.rate) && b.rate > 0)
                .map(b -> percent(100 * row.rate / b.rate) + " of " + (b.key.contains(".raw") ? "raw" : b.label));
    }

    void printTable(PrintStream out) {
        String format = "%-40s %10s %8s %8s %9s %11s %9s  %-34s %s%n";
        out.printf(format, "run", "msgs/s", "p50 ms", "p99 ms", "p99.9 ms", "CPU pxy/bch", "µs pxy/msg", "vs baseline",
                "notes");
        String scenario = null;
        for (Row r : rows) {
            if (!r.scenario.equals(scenario)) {
                scenario = r.scenario;
                out.println(scenario);
            }
            if (r.error != null) {
                out.printf(format, "  " + r.label, "-", "-", "-", "-", "", "", "", "FAILED: " + r.error);
                continue;
            }
            out.printf(format, "  " + r.label, Double.isNaN(r.rate) ? "" : String.format("%,.0f", r.rate),
                    ms(r.p(50)), ms(r.p(99)), ms(r.p(99.9)), cores(r.cpu), micros(r.proxyMicrosPerMessage()),
                    versus(r).orElse(""),
                    String.join("; ", r.notes));
        }
    }

    private static String percent(double p) {
        return p < 10 ? String.format("%.1f%%", p) : String.format("%.0f%%", p);
    }

    /** Cores used by the proxy / the bench JVM while measuring, e.g. "1.10/0.85". */
    private static String cores(CpuMeter.Usage cpu) {
        if (cpu == null) {
            return "";
        }
        return (Double.isNaN(cpu.proxyCores()) ? "n/a" : String.format("%.2f", cpu.proxyCores())) + "/"
               + (Double.isNaN(cpu.benchCores()) ? "n/a" : String.format("%.2f", cpu.benchCores()));
    }

    private static String micros(double v) {
        return Double.isNaN(v) ? "" : String.format("%.0f", v);
    }

    private static String ms(double v) {
        if (Double.isNaN(v)) {
            return "";
        }
        return v >= 100 ? String.format("%.0f", v) : String.format("%.2f", v);
    }

    void writeJson(Path path, List<Goals.Goal> goals, double elapsedSeconds) throws IOException {
        JsonObjectBuilder doc = Json.createObjectBuilder()
                .add("started", started.toString())
                .add("elapsedSeconds", round(elapsedSeconds))
                .add("target", toJson(target))
                .add("settings", toJson(settings));
        JsonArrayBuilder results = Json.createArrayBuilder();
        for (Row r : rows) {
            JsonObjectBuilder o = Json.createObjectBuilder().add("scenario", r.scenario).add("key", r.key)
                    .add("label", r.label);
            if (r.error != null) {
                results.add(o.add("error", r.error));
                continue;
            }
            o.add("msgsPerSec", number(r.rate));
            if (!Double.isNaN(r.seconds)) {
                o.add("seconds", round(r.seconds)).add("count", r.count).add("errors", r.errors)
                        .add("emptyAnswers", r.empty);
            }
            if (r.latency != null && r.latency.count() > 0) {
                o.add("latencyMs", Json.createObjectBuilder().add("p50", number(r.p(50))).add("p99", number(r.p(99)))
                        .add("p999", number(r.p(99.9))).add("max", number(r.latency.maxMillis())));
            }
            if (r.baselineKey != null) {
                JsonObjectBuilder b = Json.createObjectBuilder().add("key", r.baselineKey);
                row(r.baselineKey).ifPresent(base -> {
                    b.add("msgsPerSec", number(base.rate));
                    if (!Double.isNaN(r.rate) && base.rate > 0) {
                        b.add("percent", round(100 * r.rate / base.rate));
                    }
                });
                o.add("baseline", b);
            }
            if (r.cpu != null) {
                o.add("cpuCores", Json.createObjectBuilder().add("proxy", number(r.cpu.proxyCores()))
                        .add("benchJvm", number(r.cpu.benchCores())).add("proxyJit", number(r.cpu.proxyJitCores())));
                o.add("proxyCpuMicrosPerMessage", number(r.proxyMicrosPerMessage()));
            }
            if (!r.notes.isEmpty()) {
                JsonArrayBuilder notes = Json.createArrayBuilder();
                r.notes.forEach(notes::add);
                o.add("notes", notes);
            }
            if (!r.extra.isEmpty()) {
                o.add("details", toJson(r.extra));
            }
            results.add(o);
        }
        doc.add("results", results);
        JsonArrayBuilder targets = Json.createArrayBuilder();
        for (Goals.Goal g : goals) {
            JsonObjectBuilder o = Json.createObjectBuilder().add("target", g.name());
            o.add("met", g.met() == null ? JsonValue.NULL : g.met() ? JsonValue.TRUE : JsonValue.FALSE);
            targets.add(o.add("detail", g.detail()));
        }
        doc.add("targets", targets);
        Files.createDirectories(path.toAbsolutePath().getParent());
        try (Writer w = Files.newBufferedWriter(path)) {
            Json.createWriterFactory(Map.of(JsonGenerator.PRETTY_PRINTING, true)).createWriter(w)
                    .writeObject(doc.build());
        }
    }

    private static JsonValue number(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? JsonValue.NULL : Json.createValue(round(v));
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    private static JsonObjectBuilder toJson(Map<String, ?> map) {
        JsonObjectBuilder o = Json.createObjectBuilder();
        map.forEach((k, v) -> o.add(k, value(v)));
        return o;
    }

    @SuppressWarnings("unchecked")
    private static JsonValue value(Object v) {
        if (v == null) {
            return JsonValue.NULL;
        }
        if (v instanceof Boolean b) {
            return b ? JsonValue.TRUE : JsonValue.FALSE;
        }
        if (v instanceof Integer || v instanceof Long) {
            return Json.createValue(((Number) v).longValue());
        }
        if (v instanceof Number n) {
            return number(n.doubleValue());
        }
        if (v instanceof Map<?, ?> m) {
            return toJson((Map<String, ?>) m).build();
        }
        if (v instanceof List<?> list) {
            JsonArrayBuilder a = Json.createArrayBuilder();
            list.forEach(e -> a.add(value(e)));
            return a.build();
        }
        return Json.createValue(v.toString());
    }
}
