package io.kafkapixy.config;

import java.util.Map;

/** One entry of the {@code logging} list: a sink name ({@code console}, {@code json}, {@code syslog}) and severity. */
public record LoggingConfig(String name, String severity, Map<String, String> params) {

    public static final LoggingConfig DEFAULT = new LoggingConfig("console", "info", Map.of());

    public LoggingConfig {
        params = Map.copyOf(params);
    }
}
