package io.kafkapixy.config;

import java.util.List;

import io.kafkapixy.config.ConfigKey.Bound;
import io.kafkapixy.config.ConfigKey.Type;

/** Top-level {@code tls}: the APIs' TLS, the original's two keys and {@code client_ca_path} (new). */
public final class ServerTlsConfig {

    public static final ConfigKey<String> CERTIFICATE_PATH = ConfigKey.of(
            "tls.certificate_path", Type.STRING, "",
            Bound.<String>none(),
            "PEM certificate (chain) of both APIs; TLS is on when it and `key_path` are set (see Security)");
    public static final ConfigKey<String> KEY_PATH = ConfigKey.of(
            "tls.key_path", Type.STRING, "",
            Bound.<String>none(),
            "PEM private key of that certificate");
    public static final ConfigKey<String> CLIENT_CA_PATH = ConfigKey.of(
            "tls.client_ca_path", Type.STRING, "",
            Bound.<String>none(),
            "PEM CA bundle: clients of both APIs must present a certificate from it (see Security)");

    /** The section's keys, in the order the config summary and the README list them. */
    public static final List<ConfigKey<?>> KEYS = List.of(CERTIFICATE_PATH, KEY_PATH, CLIENT_CA_PATH);

    public static final ServerTlsConfig NONE = new ServerTlsConfig(Settings.defaults(KEYS));

    private final Settings values;

    private ServerTlsConfig(Settings values) {
        this.values = values;
    }

    /** This section with {@code key} set to {@code value}. */
    public <T> ServerTlsConfig with(ConfigKey<T> key, T value) {
        return new ServerTlsConfig(values.with(key, value));
    }

    /** This section with every key the YAML section names read from it. */
    ServerTlsConfig read(YamlSection section) {
        return new ServerTlsConfig(values.read(section));
    }

    Settings settings() {
        return values;
    }

    public String certificatePath() {
        return values.get(CERTIFICATE_PATH);
    }

    public String keyPath() {
        return values.get(KEY_PATH);
    }

    public String clientCaPath() {
        return values.get(CLIENT_CA_PATH);
    }

    public boolean enabled() {
        return !certificatePath().isEmpty() && !keyPath().isEmpty();
    }

    public boolean clientAuth() {
        return enabled() && !clientCaPath().isEmpty();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ServerTlsConfig other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return "ServerTlsConfig" + values;
    }
}
