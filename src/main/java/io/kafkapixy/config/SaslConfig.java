package io.kafkapixy.config;

import java.util.Locale;
import java.util.List;

import io.kafkapixy.config.ConfigKey.Bound;
import io.kafkapixy.config.ConfigKey.Type;

/** {@code proxies.<name>.net.sasl}: SASL to the brokers, each key defined once below. */
public final class SaslConfig {

    public static final List<String> MECHANISMS = List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");
    /** A mechanism is read in upper case: {@code scram-sha-256} is {@code SCRAM-SHA-256}. */
    static final Type<String> MECHANISM_TYPE = new Type<>(
            (section, key, dflt) -> section.string(key, dflt).toUpperCase(Locale.ROOT), s -> s);

    public static final ConfigKey<Boolean> ENABLE = ConfigKey.of(
            "proxies.<name>.net.sasl.enable", Type.BOOL, false,
            Bound.<Boolean>none(),
            "SASL authentication with the brokers (over TLS when `kafka.tls` is on)");
    public static final ConfigKey<Boolean> HANDSHAKE = ConfigKey.of(
            "proxies.<name>.net.sasl.handshake", Type.BOOL, false,
            Bound.<Boolean>none(),
            "accepted for compatibility; the SASL handshake is always sent");
    public static final ConfigKey<String> USER = ConfigKey.of(
            "proxies.<name>.net.sasl.user", Type.STRING, "",
            Bound.<String>none(),
            "the SASL user");
    public static final ConfigKey<String> PASSWORD = ConfigKey.of(
            "proxies.<name>.net.sasl.password", Type.STRING, "",
            Bound.<String>none(),
            "its password (masked in the startup summary)");
    public static final ConfigKey<String> MECHANISM = ConfigKey.of(
            "proxies.<name>.net.sasl.mechanism", SaslConfig.MECHANISM_TYPE, "PLAIN",
            Bound.<String>none(),
            "`PLAIN` (the original's only one), `SCRAM-SHA-256` or `SCRAM-SHA-512`");

    /** The section's keys, in the order the config summary and the README list them. */
    public static final List<ConfigKey<?>> KEYS = List.of(ENABLE, HANDSHAKE, USER, PASSWORD, MECHANISM);

    public static final SaslConfig DEFAULT = new SaslConfig(Settings.defaults(KEYS));

    private final Settings values;

    private SaslConfig(Settings values) {
        this.values = values;
    }

    /** This section with {@code key} set to {@code value}. */
    public <T> SaslConfig with(ConfigKey<T> key, T value) {
        return new SaslConfig(values.with(key, value));
    }

    /** This section with every key the YAML section names read from it. */
    SaslConfig read(YamlSection section) {
        return new SaslConfig(values.read(section));
    }

    Settings settings() {
        return values;
    }

    public boolean enable() {
        return values.get(ENABLE);
    }

    public boolean handshake() {
        return values.get(HANDSHAKE);
    }

    public String user() {
        return values.get(USER);
    }

    public String password() {
        return values.get(PASSWORD);
    }

    public String mechanism() {
        return values.get(MECHANISM);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SaslConfig other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return "SaslConfig[enable=" + enable() + ", handshake=" + handshake() + ", user=" + user() + ", password="
               + (password().isEmpty() ? "" : "******") + ", mechanism=" + mechanism() + "]";
    }
}
