package io.kafkapixy.logging;

import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Logger;
import java.util.stream.Stream;

import io.kafkapixy.config.LogSeverity;
import io.kafkapixy.config.LoggingConfig;

/**
 * Turns the original's {@code logging} list into JUL handlers on the root logger, which every log of the process
 * reaches (ours through {@code System.Logger}, Kafka's, ZooKeeper's and Curator's through slf4j-jdk14, Helidon's).
 *
 * <p>Sinks, by {@code name}:
 * <ul>
 *     <li>{@code console}: human-readable lines ({@link ConsoleFormatter}) on stderr, where the original's logrus
 *     wrote them;</li>
 *     <li>{@code json}: one JSON object per line ({@link JsonFormatter}) on stderr. As in the original, JSON replaces
 *     the text on that one stream: with both listed, lines are written once, as JSON;</li>
 *     <li>{@code syslog}: not supported, ignored with one warning;</li>
 *     <li>any other name: ignored with a warning (the original ignored it silently).</li>
 * </ul>
 * Unlike the original, {@code severity} is honoured: the stream gets the lowest severity among the {@code console}
 * and {@code json} entries ({@link LogSeverity}). The libraries' loggers (Kafka's, the embedded broker's
 * {@code state.change.logger}, ZooKeeper's, Curator's, Helidon's) stay at warning unless that severity is debug or
 * trace. An empty list means {@code console} at {@code info}; so does a list with no usable stream sink,
 * because a proxy that logs nowhere cannot be run (the original discarded everything then).
 *
 * <p>Before {@link #apply} runs, {@code logging.properties} (read by Helidon's {@code LogConfig}) is in force.
 * Handlers are replaced, not added to, so {@link #apply} may run again. The JVM's shutdown reset is ignored by
 * {@code ShutdownSafeLogManager}, so the handler keeps working in the shutdown hook.
 */
public final class LogSetup {

    private static final System.Logger LOG = System.getLogger(LogSetup.class.getName());

    /**
     * JUL keeps loggers only weakly: a level set on a logger nobody references is lost when it is collected, and the
     * next {@code getLogger} of that name inherits the root's level again. Holding them here keeps their levels.
     */
    private static final List<Logger> LIBRARY_LOGGERS = Stream.of("org.apache.kafka", "kafka",
                    "state.change.logger", "org.apache.zookeeper", "org.apache.curator", "io.helidon", "io.grpc")
            .map(Logger::getLogger)
            .toList();

    private LogSetup() {
    }

    /**
     * Replaces the root logger's handlers with the sinks of {@code sinks} (see the class comment), writing to stderr.
     *
     * @param sinks the {@code logging} list of the config; empty for the default
     * A severity {@link LogSeverity#parse} does not know means warning, as the original's syslog sink takes it, with a
     * warning saying so: a config the original accepted still starts.
     */
    public static void apply(List<LoggingConfig> sinks) {
        install(plan(sinks), System.err);
    }

    static SinkPlan plan(List<LoggingConfig> sinks) {
        List<LoggingConfig> entries = sinks.isEmpty() ? List.of(LoggingConfig.DEFAULT) : sinks;
        LogSeverity lowest = null;
        boolean json = false;
        boolean syslog = false;
        List<String> warnings = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            LoggingConfig entry = entries.get(i);
            String key = "logging[" + i + "].severity";
            LogSeverity severity = LogSeverity.parse(entry.severity()).orElse(null);
            if (severity == null) {
                warnings.add("Using warning for " + LogSeverity.problem(key, entry.severity()));
                severity = LogSeverity.WARNING;
            }
            switch (entry.name()) {
                case "console" -> lowest = lower(lowest, severity);
                case "json" -> {
                    json = true;
                    lowest = lower(lowest, severity);
                }
                case "syslog" -> syslog = true;
                default -> warnings.add("Ignoring logging[" + i + "]: unknown sink name \"" + entry.name()
                                        + "\", want console, json or syslog");
            }
        }
        if (syslog) {
            warnings.add("Ignoring the syslog logging sink: syslog is not supported, use console or json");
        }
        if (lowest == null) {
            warnings.add("No console or json logging sink configured; logging to the console at info");
            lowest = LogSeverity.INFO;
        }
        java.util.logging.Level level = Levels.of(lowest);
        java.util.logging.Level libraryLevel = lowest.compareTo(LogSeverity.DEBUG) <= 0
                ? level
                : Levels.of(lowest.compareTo(LogSeverity.WARNING) < 0 ? LogSeverity.WARNING : lowest);
        return new SinkPlan(json ? SinkPlan.Format.JSON : SinkPlan.Format.CONSOLE, level, libraryLevel, warnings);
    }

    static void install(SinkPlan plan, OutputStream out) {
        Handler handler = plan.handler(out);
        Logger root = Logger.getLogger("");
        synchronized (LogSetup.class) {
            // The new handler goes in first: a record logged meanwhile may be written twice, but is never lost.
            Handler[] previous = root.getHandlers();
            root.addHandler(handler);
            for (Handler h : previous) {
                root.removeHandler(h);
                h.close();
            }
            root.setLevel(plan.level());
            for (Logger library : LIBRARY_LOGGERS) {
                library.setLevel(plan.libraryLevel());
            }
        }
        for (String warning : plan.warnings()) {
            LOG.log(Level.WARNING, warning);
        }
    }

    private static LogSeverity lower(LogSeverity a, LogSeverity b) {
        return a == null || b.compareTo(a) < 0 ? b : a;
    }
}
