package io.kafkapixy.config;

import java.time.Duration;
import java.util.List;

/** {@code proxies.<name>.zoo_keeper}: used only in {@code membership: zookeeper} mode. */
public record ZooKeeperConfig(List<String> seedPeers, String chroot, Duration sessionTimeout) {

    public static final ZooKeeperConfig DEFAULT =
            new ZooKeeperConfig(List.of("localhost:2181"), "", Duration.ofSeconds(15));

    public ZooKeeperConfig {
        seedPeers = List.copyOf(seedPeers);
    }
}
