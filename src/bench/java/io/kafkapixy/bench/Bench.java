package io.kafkapixy.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.FileHandler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import io.kafkapixy.config.Durations;
import io.kafkapixy.testing.PixyProcess;

/**
 * The benchmark: Kafka-Pixy (this project, or any compatible server) side by side with raw kafka-clients on the
 * same Kafka. {@code ./bench.sh --help} lists the flags. Progress goes to stderr, the result table and the targets to
 * stdout, everything to a JSON file; logs of the broker and clients in this JVM to target/bench/bench.log, the
 * child proxy's to target/bench/proxy.log.
 */
public final class Bench {

    private Bench() {
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.print(Options.USAGE);
            System.exit(2);
            return;
        }
        if (options.help()) {
            System.out.print(Options.USAGE);
            return;
        }
        long started = System.nanoTime();
        Path logDir = Path.of("target", "bench");
        Files.createDirectories(logDir);
        logToFile(logDir.resolve("bench.log"));

        Report report = new Report();
        report.setting("duration", Durations.format(options.duration()));
        report.setting("warmup", Durations.format(options.warmup()));
        report.setting("jitWarmup", Durations.format(options.jitWarmup()));
        report.setting("valueBytes", Payloads.SIZE);
        report.setting("partitions", RawKafka.PARTITIONS);
        report.setting("parked", options.parked());
        report.setting("longPollingTimeout", Durations.format(options.longPoll()));
        report.setting("idleTopics", options.idleTopics());
        report.setting("parkedPerIdleTopic", options.parkedPerIdleTopic());
        report.setting("scenarios", List.copyOf(options.scenarios()));
        report.setting("rawProducer", "one shared KafkaProducer configured as the proxy's default producer: acks=all, "
                                      + "not idempotent, snappy, linger.ms=1, batch.size=128KiB");

        BenchContext.progress(options.external()
                ? "Measuring the server at gRPC " + options.grpc().orElseThrow() + ", REST " + options.http()
                        .orElseThrow() + ", Kafka " + options.kafka().orElseThrow()
                : "Starting an embedded Kafka broker and " + options.jar() + " ("
                  + String.join(" ", PixyProcess.productionJvmSettings()) + ")");
        try (Target target = Target.start(options, logDir)) {
            report.target(target.describe());
            try (BenchContext ctx = new BenchContext(options, target, report)) {
                JitWarmUp.run(ctx, options.jitWarmup());
                for (Scenario scenario : Scenario.selected(options.scenarios())) {
                    BenchContext.progress("== " + scenario.name());
                    try {
                        scenario.run(ctx);
                    } catch (Exception e) {
                        // one broken scenario must not cost the figures of the others
                        report.add(scenario.name(), scenario.name() + ".failed", "(scenario)")
                                .failed(ClosedLoop.describe(e));
                        Logger.getLogger(Bench.class.getName()).log(Level.SEVERE, scenario.name() + " failed", e);
                        BenchContext.progress("  FAILED: " + ClosedLoop.describe(e) + " (stack trace in bench.log)");
                    }
                }
            }
            BenchContext.progress("Stopping" + (target.ownProxy() ? " the proxy and the broker" : ""));
        }
        double elapsed = (System.nanoTime() - started) / 1e9;
        List<Goals.Goal> goals = Goals.evaluate(report);
        PrintStream out = System.out;
        out.println();
        report.printTable(out);
        out.println();
        out.println("Targets:");
        for (Goals.Goal g : goals) {
            String verdict = g.met() == null ? "n/a    " : g.met() ? "MET    " : "NOT MET";
            out.println("  " + verdict + " " + g.name() + ": " + g.detail());
        }
        out.println();
        report.writeJson(options.out(), goals, elapsed);
        out.printf("Elapsed: %.0f s. JSON: %s. Logs: %s%n", elapsed, options.out(), logDir);
        out.flush();
        // kafka-clients and grpc leave non-daemon threads behind
        System.exit(0);
    }

    /** Broker and client logs would drown the progress lines; their warnings go to a file instead. */
    private static void logToFile(Path file) throws IOException {
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        FileHandler handler = new FileHandler(file.toString());
        handler.setFormatter(new SimpleFormatter());
        handler.setLevel(Level.ALL);
        root.addHandler(handler);
        root.setLevel(Level.WARNING);
    }
}
