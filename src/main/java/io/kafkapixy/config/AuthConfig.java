package io.kafkapixy.config;

import java.util.List;

import io.kafkapixy.config.ConfigKey.Bound;
import io.kafkapixy.config.ConfigKey.Type;

/** Top-level {@code auth} (new in this project): the bearer tokens both APIs require. */
public final class AuthConfig {

    public static final ConfigKey<String> BEARER_TOKENS_FILE = ConfigKey.of(
            "auth.bearer_tokens_file", Type.STRING, "",
            Bound.<String>none(),
            "a file of bearer tokens both APIs require, one per line, `#` comments (see Security)");
    public static final ConfigKey<String> BEARER_TOKENS_ENV = ConfigKey.of(
            "auth.bearer_tokens_env", Type.STRING, "",
            Bound.<String>none(),
            "an environment variable holding more such tokens, separated by commas or spaces");

    /** The section's keys, in the order the config summary and the README list them. */
    public static final List<ConfigKey<?>> KEYS = List.of(BEARER_TOKENS_FILE, BEARER_TOKENS_ENV);

    public static final AuthConfig NONE = new AuthConfig(Settings.defaults(KEYS));

    private final Settings values;

    private AuthConfig(Settings values) {
        this.values = values;
    }

    /** This section with {@code key} set to {@code value}. */
    public <T> AuthConfig with(ConfigKey<T> key, T value) {
        return new AuthConfig(values.with(key, value));
    }

    /** This section with every key the YAML section names read from it. */
    AuthConfig read(YamlSection section) {
        return new AuthConfig(values.read(section));
    }

    Settings settings() {
        return values;
    }

    public String bearerTokensFile() {
        return values.get(BEARER_TOKENS_FILE);
    }

    public String bearerTokensEnv() {
        return values.get(BEARER_TOKENS_ENV);
    }

    public boolean enabled() {
        return !bearerTokensFile().isEmpty() || !bearerTokensEnv().isEmpty();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AuthConfig other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return "AuthConfig" + values;
    }
}
