package io.kafkapixy.config;

import java.time.Duration;
import java.util.List;

import io.kafkapixy.config.ConfigKey.Bound;
import io.kafkapixy.config.ConfigKey.Type;

/** {@code proxies.<name>.net}: timeouts to the brokers, each key defined once below, and its {@code sasl}. */
public final class NetConfig {

    public static final ConfigKey<Duration> DIAL_TIMEOUT = ConfigKey.of(
            "proxies.<name>.net.dial_timeout", Type.DURATION, Duration.ofSeconds(30),
            Bound.positive(),
            "how long a connection to a broker may take; startup fails when no seed broker answers within it");
    public static final ConfigKey<Duration> READ_TIMEOUT = ConfigKey.of(
            "proxies.<name>.net.read_timeout", Type.DURATION, Duration.ofSeconds(30),
            Bound.positive(),
            "how long a broker may take to answer");
    public static final ConfigKey<Duration> WRITE_TIMEOUT = ConfigKey.of(
            "proxies.<name>.net.write_timeout", Type.DURATION, Duration.ofSeconds(30),
            Bound.positive(),
            "how long a send to a broker may take");

    /** The section's keys, in the order the config summary and the README list them. */
    public static final List<ConfigKey<?>> KEYS = List.of(DIAL_TIMEOUT, READ_TIMEOUT, WRITE_TIMEOUT);

    public static final NetConfig DEFAULT = new NetConfig(Settings.defaults(KEYS), SaslConfig.DEFAULT);

    private final Settings values;
    private final SaslConfig sasl;

    private NetConfig(Settings values, SaslConfig sasl) {
        this.values = values;
        this.sasl = sasl;
    }

    /** This section with {@code key} set to {@code value}. */
    public <T> NetConfig with(ConfigKey<T> key, T value) {
        return new NetConfig(values.with(key, value), sasl);
    }

    /** This section with every key the YAML section names read from it. */
    NetConfig read(YamlSection section) {
        return new NetConfig(values.read(section), sasl.read(section.section("sasl")));
    }

    Settings settings() {
        return values;
    }

    public Duration dialTimeout() {
        return values.get(DIAL_TIMEOUT);
    }

    public Duration readTimeout() {
        return values.get(READ_TIMEOUT);
    }

    public Duration writeTimeout() {
        return values.get(WRITE_TIMEOUT);
    }

    public SaslConfig sasl() {
        return sasl;
    }

    /** This section with this {@code sasl}. */
    public NetConfig withSasl(SaslConfig sasl) {
        return new NetConfig(values, sasl);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NetConfig other && values.equals(other.values) && sasl.equals(other.sasl);
    }

    @Override
    public int hashCode() {
        return values.hashCode() * 31 + sasl.hashCode();
    }

    @Override
    public String toString() {
        return "NetConfig" + values + " " + sasl;
    }
}
