package io.kafkapixy.logging;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;

import io.kafkapixy.config.ConfigLoader;
import io.kafkapixy.config.LoggingConfig;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class LogSetupTest {

    private static final Instant AT = Instant.parse("2026-11-30T12:00:00.123Z");

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private static LoggingConfig sink(String name, String severity) {
        return LoggingConfig.sink(name).withSeverity(severity);
    }

    private static LogRecord record(Level level, String message, Object... params) {
        LogRecord r = new LogRecord(level, message);
        r.setInstant(AT);
        r.setLoggerName("io.kafkapixy.X");
        r.setParameters(params.length == 0 ? null : params);
        return r;
    }

    /** Publishes through the handler the plan of {@code sinks} makes, as every logger would. */
    private List<String> written(List<LoggingConfig> sinks, LogRecord... records) {
        Handler handler = LogSetup.plan(sinks).handler(out);
        for (LogRecord r : records) {
            handler.publish(r);
        }
        return lines();
    }

    private List<String> lines() {
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    private static JsonObject parse(String line) {
        try (JsonReader reader = Json.createReader(new StringReader(line))) {
            return reader.readObject();
        }
    }

    @Test
    void aJsonSinkWritesOneObjectPerLineWithTimeLevelLoggerMessageAndThread() {
        List<String> lines = written(List.of(sink("json", "info")),
                record(Level.INFO, "Acked: offset={0}, partition={1}", 42, 3));

        assertThat(lines, hasSize(1));
        JsonObject o = parse(lines.getFirst());
        assertAll(
                () -> assertEquals("2026-11-30T12:00:00.123Z", o.getString("time")),
                () -> assertEquals("info", o.getString("level")),
                () -> assertEquals("io.kafkapixy.X", o.getString("logger")),
                () -> assertEquals("Acked: offset=42, partition=3", o.getString("msg")),
                () -> assertEquals(Thread.currentThread().getName(), o.getString("thread")),
                () -> assertFalse(o.containsKey("error")),
                () -> assertFalse(o.containsKey("stack")));
    }

    @Test
    void jsonTimeAlwaysHasMillisecondsInUtc() {
        LogRecord r = record(Level.INFO, "x");
        r.setInstant(Instant.parse("2026-01-02T03:04:05Z"));

        assertEquals("2026-01-02T03:04:05.000Z",
                parse(written(List.of(sink("json", "info")), r).getFirst()).getString("time"));
    }

    @Test
    void jsonEscapesQuotesNewlinesControlCharactersAndKeepsUnicode() {
        String message = "He said \"hi\"\nsecond line\r\n\ttab \\ back\u0001slash é 日本 😀 </script>";

        List<String> lines = written(List.of(sink("json", "info")), record(Level.INFO, message));

        assertThat("a message with newlines is still one line", lines, hasSize(1));
        assertEquals(message, parse(lines.getFirst()).getString("msg"));
        assertThat(lines.getFirst(), containsString("\\\"hi\\\"\\nsecond line"));
    }

    @Test
    void jsonCarriesTheThrowableAsErrorAndStackOnTheSameLine() {
        LogRecord r = record(Level.SEVERE, "Failed to commit offset");
        r.setThrown(new IllegalStateException("boom \"quoted\"", new IOException("root cause")));

        List<String> lines = written(List.of(sink("json", "info")), r);

        assertThat(lines, hasSize(1));
        JsonObject o = parse(lines.getFirst());
        assertAll(
                () -> assertEquals("error", o.getString("level")),
                () -> assertEquals("java.lang.IllegalStateException: boom \"quoted\"", o.getString("error")),
                () -> assertThat(o.getString("stack"), startsWith("java.lang.IllegalStateException: boom")),
                () -> assertThat(o.getString("stack"), containsString("\tat io.kafkapixy.logging.LogSetupTest")),
                () -> assertThat(o.getString("stack"), containsString("Caused by: java.io.IOException: root cause")));
    }

    static Stream<Arguments> levelNames() {
        return Stream.of(
                Arguments.of(Level.SEVERE, "error"),
                Arguments.of(Level.WARNING, "warning"),
                Arguments.of(Level.INFO, "info"),
                Arguments.of(Level.CONFIG, "debug"),
                Arguments.of(Level.FINE, "debug"),
                Arguments.of(Level.FINER, "trace"),
                Arguments.of(Level.FINEST, "trace"));
    }

    @ParameterizedTest(name = "{0} is {1}")
    @MethodSource("levelNames")
    void jsonLevelsUseTheConfigsSeverityNames(Level level, String name) {
        List<String> lines = written(List.of(sink("json", "trace")), record(level, "m"));

        assertEquals(name, parse(lines.getFirst()).getString("level"));
    }

    @Test
    void aWarningSinkDropsInfoAndWritesWarningsAndErrors() {
        List<String> lines = written(List.of(sink("console", "warning")),
                record(Level.INFO, "info"), record(Level.WARNING, "warning"), record(Level.FINE, "debug"),
                record(Level.SEVERE, "error"));

        assertThat(lines, contains(containsString(": warning"), containsString(": error")));
    }

    @Test
    void anErrorSinkDropsWarnings() {
        List<String> lines = written(List.of(sink("json", "ERROR")),
                record(Level.WARNING, "warning"), record(Level.SEVERE, "error"));

        assertThat(lines, hasSize(1));
        assertEquals("error", parse(lines.getFirst()).getString("msg"));
    }

    @Test
    void theConsoleLineIsTimeLevelLoggerAndMessageThenTheStackTrace() {
        Handler handler = new LineHandler(out, new ConsoleFormatter(ZoneOffset.UTC), Level.INFO);
        LogRecord failed = record(Level.WARNING, "Failed to claim partition: {0}", "p0");
        failed.setThrown(new IllegalStateException("boom"));

        handler.publish(record(Level.INFO, "Kafka-Pixy started: rest={0}", "19092"));
        handler.publish(failed);

        List<String> lines = lines();
        assertEquals("2026-11-30 12:00:00.123 INFO  io.kafkapixy.X: Kafka-Pixy started: rest=19092", lines.get(0));
        assertEquals("2026-11-30 12:00:00.123 WARN  io.kafkapixy.X: Failed to claim partition: p0", lines.get(1));
        assertEquals("java.lang.IllegalStateException: boom", lines.get(2));
        assertThat(lines.get(3), startsWith("\tat io.kafkapixy.logging.LogSetupTest"));
    }

    @Test
    void everyRecordIsFlushedAsItIsWritten() {
        Handler handler = LogSetup.plan(List.of(sink("console", "info"))).handler(out);

        handler.publish(record(Level.INFO, "first"));

        assertThat("nothing waits for a flush or close", lines(), contains(containsString(": first")));
    }

    @Test
    void manyVirtualThreadsWriteWholeLines() throws Exception {
        Handler handler = LogSetup.plan(List.of(sink("json", "info"))).handler(out);
        int threads = 32;
        int each = 50;
        try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                executor.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        handler.publish(record(Level.INFO, "thread {0} record {1} \"{2}\"", thread, i, "é\n"));
                    }
                });
            }
        }

        List<String> lines = lines();
        assertThat(lines, hasSize(threads * each));
        for (String line : lines) {
            assertThat(parse(line).getString("msg"), startsWith("thread "));
        }
    }

    @Test
    void anUnknownSeverityMeansWarningAsTheOriginalTakesItAndSaysSo() {
        SinkPlan plan = LogSetup.plan(List.of(sink("json", "loud")));

        assertEquals(Level.WARNING, plan.level());
        assertEquals(List.of("Using warning for logging[0].severity must be one of trace, debug, info, warning, "
                             + "error, got \"loud\""), plan.warnings());
    }

    @Test
    void anUnknownSeverityInTheConfigFileDoesNotStopStartup() {
        var config = ConfigLoader.fromYaml("""
                proxies:
                  default: {}
                logging:
                  - name: console
                    severity: verbose
                """, "kp_test_1");

        assertEquals("verbose", config.logging().get(0).severity());
    }

    static Stream<Arguments> severities() {
        return Stream.of(
                Arguments.of("trace", Level.FINEST),
                Arguments.of("debug", Level.FINE),
                Arguments.of("DEBUG", Level.FINE),
                Arguments.of("info", Level.INFO),
                Arguments.of("", Level.INFO),
                Arguments.of("warn", Level.WARNING),
                Arguments.of("Warning", Level.WARNING),
                Arguments.of("error", Level.SEVERE),
                Arguments.of("fatal", Level.SEVERE));
    }

    @ParameterizedTest(name = "\"{0}\" is {1}")
    @MethodSource("severities")
    void severitiesAreLogrusNamesIgnoringCase(String severity, Level level) {
        assertEquals(level, LogSetup.plan(List.of(sink("console", severity))).level());
    }

    @Test
    void anEmptyListIsTheConsoleAtInfoWithLibrariesAtWarning() {
        SinkPlan plan = LogSetup.plan(List.of());

        assertEquals(new SinkPlan(SinkPlan.Format.CONSOLE, Level.INFO, Level.WARNING, List.of()), plan);
    }

    @Test
    void theLibrariesStayAtWarningUnlessASinkAsksForDebug() {
        assertAll(
                () -> assertEquals(Level.WARNING, LogSetup.plan(List.of(sink("console", "info"))).libraryLevel()),
                () -> assertEquals(Level.SEVERE, LogSetup.plan(List.of(sink("console", "error"))).libraryLevel()),
                () -> assertEquals(Level.FINE, LogSetup.plan(List.of(sink("console", "debug"))).libraryLevel()),
                () -> assertEquals(Level.FINEST, LogSetup.plan(List.of(sink("json", "trace"))).libraryLevel()));
    }

    @Test
    void jsonReplacesConsoleAndTheLowestSeverityWins() {
        SinkPlan plan = LogSetup.plan(List.of(sink("console", "warning"), sink("json", "debug")));

        assertEquals(SinkPlan.Format.JSON, plan.format());
        assertEquals(Level.FINE, plan.level());
    }

    @Test
    void syslogIsIgnoredWithOneWarning() {
        SinkPlan plan = LogSetup.plan(List.of(sink("console", "info"), sink("syslog", "error"),
                sink("syslog", "info")));

        assertEquals(SinkPlan.Format.CONSOLE, plan.format());
        assertThat(plan.warnings(), contains(containsString("syslog is not supported")));
    }

    @Test
    void withoutAStreamSinkTheConsoleLogsAtInfoRatherThanNothing() {
        SinkPlan plan = LogSetup.plan(List.of(sink("syslog", "error"), sink("udplog", "info")));

        assertEquals(SinkPlan.Format.CONSOLE, plan.format());
        assertEquals(Level.INFO, plan.level());
        assertThat(plan.warnings(), contains(containsString("unknown sink name \"udplog\""),
                containsString("syslog is not supported"), containsString("No console or json logging sink")));
    }

    /** The process-wide logging state the two tests below change, put back for the tests that follow. */
    private static final class GlobalLogging implements AutoCloseable {

        private static final List<String> LIBRARIES =
                List.of("org.apache.kafka", "kafka", "state.change.logger", "org.apache.zookeeper", "org.apache.curator",
                        "io.helidon");

        private final Logger root = Logger.getLogger("");
        private final Handler[] handlers = root.getHandlers();
        private final Level rootLevel = root.getLevel();
        private final Map<String, Level> libraryLevels = new java.util.HashMap<>();

        GlobalLogging() {
            LIBRARIES.forEach(name -> libraryLevels.put(name, Logger.getLogger(name).getLevel()));
        }

        @Override
        public void close() {
            for (Handler h : root.getHandlers()) {
                root.removeHandler(h);
            }
            for (Handler h : handlers) {
                root.addHandler(h);
            }
            root.setLevel(rootLevel);
            libraryLevels.forEach((name, level) -> Logger.getLogger(name).setLevel(level));
        }
    }

    @Test
    void applyingReplacesTheRootHandlersAndSetsTheLevels() {
        try (GlobalLogging saved = new GlobalLogging()) {
            LogSetup.install(LogSetup.plan(List.of(sink("json", "info"), sink("syslog", "info"))), out);

            System.getLogger("io.kafkapixy.logging.test").log(System.Logger.Level.INFO, "hello {0}", "world");
            Logger.getLogger("org.apache.kafka.clients.NetworkClient").info("chatty");
            Logger.getLogger("org.apache.kafka.clients.NetworkClient").warning("worth knowing");

            assertEquals(1, saved.root.getHandlers().length);
            assertEquals(Level.INFO, saved.root.getLevel());
            List<JsonObject> objects = lines().stream().map(LogSetupTest::parse).toList();
            assertThat(objects.stream().map(o -> o.getString("msg")).toList(),
                    contains(containsString("syslog is not supported"), is("hello world"), is("worth knowing")));
            assertEquals("io.kafkapixy.logging.LogSetup", objects.getFirst().getString("logger"));
            assertEquals("warning", objects.getFirst().getString("level"));
        }
    }

    @Test
    void applyingAgainLeavesOnlyTheNewHandler() {
        try (GlobalLogging saved = new GlobalLogging()) {
            LogSetup.install(LogSetup.plan(List.of(sink("console", "info"))), out);
            LogSetup.install(LogSetup.plan(List.of(sink("json", "warning"))), out);

            Handler[] handlers = saved.root.getHandlers();
            assertEquals(1, handlers.length);
            assertEquals(Level.WARNING, handlers[0].getLevel());
            assertEquals(Level.WARNING, saved.root.getLevel());
        }
    }
}
