package io.kafkapixy.logging;

import java.io.OutputStream;
import java.util.List;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;

/**
 * What a {@code logging} list comes down to, decided before anything is changed: the one stream sink (its format
 * and level), the level of the root logger and of the chatty libraries, and the warnings to log once it is in place.
 *
 * @param format       of the lines written to the stream
 * @param level        the lowest level written; the root logger's level too, so nothing lower is even formatted
 * @param libraryLevel for Kafka, ZooKeeper, Curator and Helidon: warnings and up unless debugging was asked for
 * @param warnings     about sinks that were ignored, logged after the new handler is installed
 */
record SinkPlan(Format format, Level level, Level libraryLevel, List<String> warnings) {

    enum Format { CONSOLE, JSON }

    SinkPlan {
        warnings = List.copyOf(warnings);
    }

    /** A new handler that writes this plan's lines to {@code out}. */
    Handler handler(OutputStream out) {
        Formatter formatter = switch (format) {
            case CONSOLE -> new ConsoleFormatter();
            case JSON -> new JsonFormatter();
        };
        return new LineHandler(out, formatter, level);
    }
}
