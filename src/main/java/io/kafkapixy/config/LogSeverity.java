package io.kafkapixy.config;

import java.util.Locale;
import java.util.Optional;

import io.kafkapixy.errors.GoStrings;

/**
 * The values a {@code logging} entry's {@code severity} may take: the lowest severity that sink writes.
 *
 * <p>The names are logrus's (the original parsed them with {@code logrus.ParseLevel}), case-insensitive, so every
 * config the original accepted with a meaningful severity is accepted here. The vocabulary lives in this package,
 * not beside the log handlers, so that {@link Validation} can reject a bad value at startup without depending on how
 * logging is done.
 */
public enum LogSeverity {
    TRACE, DEBUG, INFO, WARNING, ERROR;

    /**
     * @return the severity named by {@code text}; an empty text is {@link #INFO}, what the original's console wrote
     *         whatever the severity said; {@code warn} is {@link #WARNING}; {@code fatal} and {@code panic} (logrus
     *         levels the proxy never logs at) are {@link #ERROR}
     */
    public static Optional<LogSeverity> parse(String text) {
        return Optional.ofNullable(switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "trace" -> TRACE;
            case "debug" -> DEBUG;
            case "", "info" -> INFO;
            case "warn", "warning" -> WARNING;
            case "error", "fatal", "panic" -> ERROR;
            default -> null;
        });
    }

    /** The complaint about a {@code severity} that {@link #parse} rejects, naming the key it came from. */
    public static String problem(String key, String text) {
        return key + " must be one of trace, debug, info, warning, error, got " + GoStrings.quote(text);
    }

    /** The lower-case name, as written in a config and in JSON log lines. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
