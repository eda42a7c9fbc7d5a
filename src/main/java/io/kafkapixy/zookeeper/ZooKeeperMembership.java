package io.kafkapixy.zookeeper;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

import io.kafkapixy.config.ZooKeeperConfig;
import io.kafkapixy.admin.PixyAdmin;
import io.kafkapixy.consumer.Membership;
import io.kafkapixy.consumer.PauseWatch;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import org.apache.curator.RetryPolicy;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * One cluster's connection to ZooKeeper for {@code membership: zookeeper}, and the memberships of its groups.
 * Connecting is asynchronous, as in the original: an unreachable ZooKeeper does not stop startup. Owned and closed
 * by the {@code Proxy}, after its consumers.
 */
public final class ZooKeeperMembership implements AutoCloseable, PixyAdmin.ConsumerDirectory {

    private final CuratorFramework zk;
    private final ZkPaths paths;
    private final PauseWatch pauses;

    private ZooKeeperMembership(CuratorFramework zk, ZkPaths paths, PauseWatch pauses) {
        this.zk = zk;
        this.paths = paths;
        this.pauses = pauses;
    }

    public static ZooKeeperMembership connect(ZooKeeperConfig config) {
        return new ZooKeeperMembership(startClient(config, Duration.ofSeconds(15),
                new ExponentialBackoffRetry(100, 10, 5_000)), new ZkPaths(config.chroot()), PauseWatch.process());
    }

    /**
     * A Curator client of {@code config}'s peers and session timeout, connecting in the background (an unreachable
     * ZooKeeper does not stop startup, as in the original).
     */
    static CuratorFramework startClient(ZooKeeperConfig config, Duration connectTimeout, RetryPolicy retry) {
        int session = (int) Math.min(Integer.MAX_VALUE, config.sessionTimeout().toMillis());
        CuratorFramework zk = CuratorFrameworkFactory.newClient(String.join(",", config.seedPeers()), session,
                (int) connectTimeout.toMillis(), retry);
        zk.start();
        return zk;
    }

    /** Memberships whose member id is the instance's {@code client_id}, retrying claims every {@code retryBackoff}. */
    public Membership.Factory memberships(String memberId, Duration retryBackoff, Clock clock) {
        return (group, kafka, lifecycle) -> new ZkMembership(zk, paths, group, memberId, kafka, lifecycle,
                retryBackoff, clock, pauses);
    }

    /**
     * List-consumers in this mode: the owner nodes of the topic, per group. With a group, a group or topic ZooKeeper
     * does not know is an error with the original's text; without one, groups that fail are skipped.
     */
    @Override
    public List<String> members(String group) {
        try {
            return zk.getChildren().forPath(paths.ids(group));
        } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw new PixyException(ErrorKind.ADMIN_FAILED, "failed to fetch group members: " + e.getMessage());
        }
    }

    @Override
    public SortedMap<String, SortedMap<String, List<Integer>>> list(String topic, Optional<String> group) {
        SortedMap<String, SortedMap<String, List<Integer>>> result = new TreeMap<>();
        if (group.isPresent()) {
            String g = group.get();
            try {
                if (zk.checkExists().forPath(paths.group(g)) == null) {
                    throw new PixyException(ErrorKind.CONSUMERS_NOT_FOUND, "unknown consumer group " + g);
                }
                if (zk.checkExists().forPath(paths.owners(g, topic)) == null) {
                    throw new PixyException(ErrorKind.CONSUMERS_NOT_FOUND, "topic " + topic + " is not consumed by " + g);
                }
                SortedMap<String, List<Integer>> owners = owners(g, topic);
                if (!owners.isEmpty()) {
                    result.put(g, owners);
                }
                return result;
            } catch (PixyException e) {
                throw e;
            } catch (Exception e) {
                throw new PixyException(ErrorKind.CONSUMERS_NOT_FOUND, String.valueOf(e.getMessage()));
            }
        }
        List<String> groups;
        try {
            groups = zk.getChildren().forPath(paths.consumers());
        } catch (Exception e) {
            throw new PixyException(ErrorKind.ADMIN_FAILED, "failed to fetch consumer groups: " + e.getMessage());
        }
        for (String g : groups) {
            try {
                SortedMap<String, List<Integer>> owners = owners(g, topic);
                if (!owners.isEmpty()) {
                    result.put(g, owners);
                }
            } catch (Exception skipped) {
                // the original skips groups that error
            }
        }
        return result;
    }

    private SortedMap<String, List<Integer>> owners(String group, String topic) throws Exception {
        SortedMap<String, List<Integer>> owners = new TreeMap<>();
        List<String> partitions;
        try {
            partitions = zk.getChildren().forPath(paths.owners(group, topic));
        } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
            return owners;
        }
        for (String p : partitions) {
            try {
                String owner = new String(zk.getData().forPath(paths.owner(group, topic, Integer.parseInt(p))),
                        java.nio.charset.StandardCharsets.UTF_8);
                owners.computeIfAbsent(owner, o -> new ArrayList<>()).add(Integer.parseInt(p));
            } catch (org.apache.zookeeper.KeeperException.NoNodeException released) {
                // released meanwhile
            }
        }
        owners.values().forEach(java.util.Collections::sort);
        return owners;
    }

    @Override
    public void close() {
        zk.close();
    }
}
