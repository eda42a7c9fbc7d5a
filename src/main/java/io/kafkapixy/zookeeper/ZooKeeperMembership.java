package io.kafkapixy.zookeeper;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.kafkapixy.config.ZooKeeperConfig;
import io.kafkapixy.consumer.Membership;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * One cluster's connection to ZooKeeper for {@code membership: zookeeper}, and the memberships of its groups.
 * Connecting is asynchronous, as in the original: an unreachable ZooKeeper does not stop startup. Owned and closed
 * by the {@code Proxy}, after its consumers.
 */
public final class ZooKeeperMembership implements AutoCloseable {

    private final CuratorFramework zk;
    private final ZkPaths paths;

    private ZooKeeperMembership(CuratorFramework zk, ZkPaths paths) {
        this.zk = zk;
        this.paths = paths;
    }

    public static ZooKeeperMembership connect(ZooKeeperConfig config) {
        int session = (int) Math.min(Integer.MAX_VALUE, config.sessionTimeout().toMillis());
        CuratorFramework zk = CuratorFrameworkFactory.newClient(String.join(",", config.seedPeers()), session,
                (int) TimeUnit.SECONDS.toMillis(15), new ExponentialBackoffRetry(100, 10, 5_000));
        zk.start();
        return new ZooKeeperMembership(zk, new ZkPaths(config.chroot()));
    }

    /** Memberships whose member id is the instance's {@code client_id}, retrying claims every {@code retryBackoff}. */
    public Membership.Factory memberships(String memberId, Duration retryBackoff, Clock clock) {
        return (group, kafka, lifecycle) -> new ZkMembership(zk, paths, group, memberId, kafka, lifecycle,
                retryBackoff, clock);
    }

    @Override
    public void close() {
        zk.close();
    }
}
