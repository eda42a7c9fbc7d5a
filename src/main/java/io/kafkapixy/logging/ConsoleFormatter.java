package io.kafkapixy.logging;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.logging.Formatter;
import java.util.logging.LogRecord;

import io.kafkapixy.config.LogSeverity;

/**
 * The {@code console} sink's line, for people: {@code 2026-11-30 12:00:00.123 INFO  io.kafkapixy.X: message}, local
 * time, then the stack trace of a throwable on the following lines. Messages are written as they are (the effective
 * config at startup is deliberately several lines); whoever wants one record per line uses the {@code json} sink.
 */
final class ConsoleFormatter extends Formatter {

    private final DateTimeFormatter time;

    ConsoleFormatter() {
        this(ZoneId.systemDefault());
    }

    /** @param zone of the timestamps; tests pin it */
    ConsoleFormatter(ZoneId zone) {
        time = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS", Locale.ROOT).withZone(zone);
    }

    @Override
    public String format(LogRecord record) {
        StringBuilder line = new StringBuilder(128);
        time.formatTo(record.getInstant(), line);
        String label = label(Levels.severityOf(record.getLevel()));
        line.append(' ').append(label).append(" ".repeat(6 - label.length()))
                .append(record.getLoggerName() == null ? "" : record.getLoggerName()).append(": ")
                .append(formatMessage(record)).append('\n');
        if (record.getThrown() != null) {
            StringWriter trace = new StringWriter();
            record.getThrown().printStackTrace(new PrintWriter(trace));
            line.append(trace);
        }
        return line.toString();
    }

    /** At most five letters, so that the logger names line up. */
    private static String label(LogSeverity severity) {
        return severity == LogSeverity.WARNING ? "WARN" : severity.name();
    }
}
