package io.kafkapixy.config;

import java.util.Map;
import java.util.Objects;

/**
 * One entry of the {@code logging} list: a sink name ({@code console}, {@code json}, {@code syslog}), its severity
 * and its free-form {@code params}. Built by name, then by what is set, so the two texts cannot be swapped.
 */
public final class LoggingConfig {

    public static final LoggingConfig DEFAULT = sink("console").withSeverity("info");

    private final String name;
    private final String severity;
    private final Map<String, String> params;

    private LoggingConfig(String name, String severity, Map<String, String> params) {
        this.name = Objects.requireNonNull(name, "name");
        this.severity = Objects.requireNonNull(severity, "severity");
        this.params = Map.copyOf(params);
    }

    /** A sink of this name, no severity given (the validation names what is missing) and no params. */
    public static LoggingConfig sink(String name) {
        return new LoggingConfig(name, "", Map.of());
    }

    public LoggingConfig withSeverity(String severity) {
        return new LoggingConfig(name, severity, params);
    }

    public LoggingConfig withParams(Map<String, String> params) {
        return new LoggingConfig(name, severity, params);
    }

    public String name() {
        return name;
    }

    public String severity() {
        return severity;
    }

    public Map<String, String> params() {
        return params;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LoggingConfig l && name.equals(l.name) && severity.equals(l.severity)
               && params.equals(l.params);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, severity, params);
    }

    @Override
    public String toString() {
        return "LoggingConfig[name=" + name + ", severity=" + severity + ", params=" + params + "]";
    }
}
