package io.kafkapixy.logging;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.util.Map;
import java.util.Objects;
import java.util.logging.Formatter;
import java.util.logging.LogRecord;

import jakarta.json.Json;
import jakarta.json.stream.JsonGenerator;
import jakarta.json.stream.JsonGeneratorFactory;

/**
 * The {@code json} sink's line, for log collectors: one JSON object per line with {@code time} (RFC 3339, UTC,
 * milliseconds), {@code level} (the config's names: {@code trace}, {@code debug}, {@code info}, {@code warning},
 * {@code error}), {@code logger}, {@code msg}, {@code thread}, and for a throwable {@code error} (its
 * {@code toString()}) and {@code stack} (the whole trace with causes, newlines escaped like any other).
 *
 * <p>Strings go through the JSON-P generator so that quotes, control characters and newlines in messages cannot
 * break a line into two records. Thread-safe: the generator factory is, and each record gets its own generator.
 */
final class JsonFormatter extends Formatter {

    private static final DateTimeFormatter TIME = new DateTimeFormatterBuilder().appendInstant(3).toFormatter();

    private static final JsonGeneratorFactory JSON = Json.createGeneratorFactory(Map.of());

    @Override
    public String format(LogRecord record) {
        StringWriter line = new StringWriter(256);
        try (JsonGenerator g = JSON.createGenerator(line)) {
            g.writeStartObject()
                    .write("time", TIME.format(record.getInstant()))
                    .write("level", Levels.severityOf(record.getLevel()).label())
                    .write("logger", Objects.toString(record.getLoggerName(), ""))
                    .write("msg", Objects.toString(formatMessage(record), ""))
                    .write("thread", threadName(record));
            Throwable thrown = record.getThrown();
            if (thrown != null) {
                StringWriter trace = new StringWriter();
                thrown.printStackTrace(new PrintWriter(trace));
                g.write("error", thrown.toString()).write("stack", trace.toString());
            }
            g.writeEnd();
        }
        return line.append('\n').toString();
    }

    /**
     * JUL records only the thread's id. Handlers run on the logging thread, so its name is at hand; virtual threads
     * are usually unnamed and show as {@code #<id>}, which still tells concurrent requests apart.
     */
    private static String threadName(LogRecord record) {
        Thread current = Thread.currentThread();
        if (current.threadId() == record.getLongThreadID() && !current.getName().isEmpty()) {
            return current.getName();
        }
        return "#" + record.getLongThreadID();
    }
}
