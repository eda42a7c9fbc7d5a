package io.kafkapixy.config;

/**
 * The configuration (file, flags or built-in values) cannot be used. The message is the complete text for the user,
 * worded as the original's where it has one (e.g. {@code invalid config parameter: invalid config, cluster=default:
 * producer.retry_max must be > 0}); callers print it as is and exit.
 */
public final class ConfigException extends RuntimeException {

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
