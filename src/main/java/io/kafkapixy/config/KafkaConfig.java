package io.kafkapixy.config;

import java.util.List;

import io.kafkapixy.config.ConfigKey.Bound;
import io.kafkapixy.config.ConfigKey.Type;

/** {@code proxies.<name>.kafka}: the brokers and TLS to them, each key defined once below. */
public final class KafkaConfig {

    public static final ConfigKey<List<String>> SEED_PEERS = new ConfigKey<>(
            "proxies.<name>.kafka.seed_peers", Type.STRINGS, List.of("localhost:9092"),
            new Bound<List<String>>(l -> !l.isEmpty(), "must not be empty", ""), "-kafkaPeers",
            "brokers to bootstrap from");
    public static final ConfigKey<String> VERSION = ConfigKey.of(
            "proxies.<name>.kafka.version", KafkaVersions.TYPE, "0.10.2.1",
            Bound.<String>none(),
            "the cluster's version as the original names it (0.8.2.2 to 2.3.0) or any newer; the protocol is "
            + "negotiated");
    public static final ConfigKey<Boolean> TLS = new ConfigKey<>(
            "proxies.<name>.kafka.tls", Type.BOOL, false,
            Bound.<Boolean>none(), "-tls",
            "TLS to the brokers");
    public static final ConfigKey<String> CA_CERTIFICATE_FILE = new ConfigKey<>(
            "proxies.<name>.kafka.ca_certificate_file", Type.STRING, "",
            Bound.<String>none(), "-caCertFile",
            "PEM CA bundle the brokers' certificates are checked against");
    public static final ConfigKey<String> CLIENT_CERTIFICATE_FILE = new ConfigKey<>(
            "proxies.<name>.kafka.client_certificate_file", Type.STRING, "",
            Bound.<String>none(), "-clientCertFile",
            "PEM client certificate for TLS client authentication (with `client_key_file`)");
    public static final ConfigKey<String> CLIENT_KEY_FILE = new ConfigKey<>(
            "proxies.<name>.kafka.client_key_file", Type.STRING, "",
            Bound.<String>none(), "-clientCertKeyFile",
            "its PEM private key (PKCS#8, PKCS#1 or SEC1, unencrypted)");
    public static final ConfigKey<Boolean> INSECURE = new ConfigKey<>(
            "proxies.<name>.kafka.insecure", Type.BOOL, false,
            Bound.<Boolean>none(), "-insecureTLS",
            "skip checking the brokers' certificates; not for production");

    /** The section's keys, in the order the config summary and the README list them. */
    public static final List<ConfigKey<?>> KEYS = List.of(SEED_PEERS, VERSION, TLS, CA_CERTIFICATE_FILE,
            CLIENT_CERTIFICATE_FILE, CLIENT_KEY_FILE, INSECURE);

    public static final KafkaConfig DEFAULT = new KafkaConfig(Settings.defaults(KEYS));

    private final Settings values;

    private KafkaConfig(Settings values) {
        this.values = values;
    }

    /** This section with {@code key} set to {@code value}. */
    public <T> KafkaConfig with(ConfigKey<T> key, T value) {
        return new KafkaConfig(values.with(key, value));
    }

    /** This section with every key the YAML section names read from it. */
    KafkaConfig read(YamlSection section) {
        return new KafkaConfig(values.read(section));
    }

    Settings settings() {
        return values;
    }

    public List<String> seedPeers() {
        return values.get(SEED_PEERS);
    }

    public String version() {
        return values.get(VERSION);
    }

    public boolean tls() {
        return values.get(TLS);
    }

    public String caCertificateFile() {
        return values.get(CA_CERTIFICATE_FILE);
    }

    public String clientCertificateFile() {
        return values.get(CLIENT_CERTIFICATE_FILE);
    }

    public String clientKeyFile() {
        return values.get(CLIENT_KEY_FILE);
    }

    public boolean insecure() {
        return values.get(INSECURE);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KafkaConfig other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return "KafkaConfig" + values;
    }
}
