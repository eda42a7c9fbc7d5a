package io.kafkapixy.config;

import java.time.Duration;
import java.util.List;

/**
 * {@code proxies.<name>.zoo_keeper}: used for membership in {@code membership: zookeeper} mode. {@code named} says
 * whether the configuration gave {@code seed_peers} (file or {@code -zookeeperPeers}): a {@code kafka}-mode instance
 * then checks ZooKeeper for members of the original's kind before it joins a group, so the two
 * kinds never share a group.
 */
public record ZooKeeperConfig(List<String> seedPeers, String chroot, Duration sessionTimeout, boolean named) {

    public static final ZooKeeperConfig DEFAULT =
            new ZooKeeperConfig(List.of("localhost:2181"), "", Duration.ofSeconds(15), false);

    public ZooKeeperConfig {
        seedPeers = List.copyOf(seedPeers);
    }

    /** Peers given explicitly. */
    public ZooKeeperConfig(List<String> seedPeers, String chroot, Duration sessionTimeout) {
        this(seedPeers, chroot, sessionTimeout, true);
    }
}
