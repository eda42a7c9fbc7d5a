package io.kafkapixy.config;

import java.time.Duration;
import java.util.List;

import io.kafkapixy.config.ConfigKey.Bound;
import io.kafkapixy.config.ConfigKey.Type;

/**
 * {@code proxies.<name>.zoo_keeper}, each key defined once below: used for membership in {@code membership:
 * zookeeper} mode. {@link #named()} says whether the configuration gave {@code seed_peers} (file or
 * {@code -zookeeperPeers}): a {@code kafka}-mode instance then checks ZooKeeper for members of the original's kind
 * before it joins a group, so the two kinds never share a group.
 */
public final class ZooKeeperConfig {

    public static final ConfigKey<List<String>> SEED_PEERS = new ConfigKey<>(
            "proxies.<name>.zoo_keeper.seed_peers", Type.STRINGS, List.of("localhost:2181"),
            Bound.<List<String>>none(), "-zookeeperPeers",
            "ZooKeeper, for `membership: zookeeper`; in `kafka` mode, when given, checked for members of the "
            + "original's kind before a group is joined");
    public static final ConfigKey<String> CHROOT = ConfigKey.of(
            "proxies.<name>.zoo_keeper.chroot", Type.STRING, "",
            Bound.<String>none(),
            "the path under which Kafka's nodes live in ZooKeeper");
    public static final ConfigKey<Duration> SESSION_TIMEOUT = ConfigKey.of(
            "proxies.<name>.zoo_keeper.session_timeout", Type.DURATION, Duration.ofSeconds(15),
            Bound.positive(),
            "the ZooKeeper session's timeout: how long a crashed instance keeps its claims");

    /** The section's keys, in the order the config summary and the README list them. */
    public static final List<ConfigKey<?>> KEYS = List.of(SEED_PEERS, CHROOT, SESSION_TIMEOUT);

    public static final ZooKeeperConfig DEFAULT = new ZooKeeperConfig(Settings.defaults(KEYS), false);

    private final Settings values;
    private final boolean named;

    private ZooKeeperConfig(Settings values, boolean named) {
        this.values = values;
        this.named = named;
    }

    /** This section with {@code key} set to {@code value}. */
    public <T> ZooKeeperConfig with(ConfigKey<T> key, T value) {
        return new ZooKeeperConfig(values.with(key, value), named || key.equals(SEED_PEERS));
    }

    /** This section with every key the YAML section names read from it. */
    ZooKeeperConfig read(YamlSection section) {
        return new ZooKeeperConfig(values.read(section), named || section.has(SEED_PEERS.name()));
    }

    Settings settings() {
        return values;
    }

    public List<String> seedPeers() {
        return values.get(SEED_PEERS);
    }

    public String chroot() {
        return values.get(CHROOT);
    }

    public Duration sessionTimeout() {
        return values.get(SESSION_TIMEOUT);
    }

    /** Whether {@code seed_peers} was given (not a key of its own). */
    public boolean named() {
        return named;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ZooKeeperConfig other && values.equals(other.values) && named == other.named;
    }

    @Override
    public int hashCode() {
        return values.hashCode() * 31 + Boolean.hashCode(named);
    }

    @Override
    public String toString() {
        return "ZooKeeperConfig" + values;
    }
}
