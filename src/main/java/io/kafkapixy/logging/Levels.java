package io.kafkapixy.logging;

import java.util.logging.Level;

import io.kafkapixy.config.LogSeverity;

/**
 * The one mapping between the config's severities and JUL levels, both ways, so that a sink set to {@code debug}
 * writes exactly the records that are printed as {@code debug} or above.
 */
final class Levels {

    private Levels() {
    }

    static Level of(LogSeverity severity) {
        return switch (severity) {
            case TRACE -> Level.FINEST;
            case DEBUG -> Level.FINE;
            case INFO -> Level.INFO;
            case WARNING -> Level.WARNING;
            case ERROR -> Level.SEVERE;
        };
    }

    /**
     * The severity a record is printed with. JUL has more levels than the config can name: {@code CONFIG} counts as
     * debug (an info sink drops it), {@code FINER} as trace, and custom levels fall into the band they sit in.
     */
    static LogSeverity severityOf(Level level) {
        int v = level.intValue();
        if (v >= Level.SEVERE.intValue()) {
            return LogSeverity.ERROR;
        } else if (v >= Level.WARNING.intValue()) {
            return LogSeverity.WARNING;
        } else if (v >= Level.INFO.intValue()) {
            return LogSeverity.INFO;
        } else if (v >= Level.FINE.intValue()) {
            return LogSeverity.DEBUG;
        }
        return LogSeverity.TRACE;
    }
}
