package io.kafkapixy.zookeeper;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.kafkapixy.config.ZooKeeperConfig;
import io.kafkapixy.consumer.GroupGuard;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;

/**
 * Keeps a {@code membership: kafka} instance out of groups whose members coordinate through ZooKeeper (the original, or
 * this project in {@code zookeeper} mode): neither kind sees the other, so both would consume every partition. Used
 * when the configuration names {@code zoo_keeper.seed_peers}; a group with children under
 * {@code /consumers/<group>/ids} is refused with 503 / {@code UNAVAILABLE} and an error in the log. When ZooKeeper does
 * not answer the group is served and a warning is logged once: the guard protects migrations, it must not make
 * ZooKeeper a dependency of Kafka mode. Checked when this instance makes a new member of a group, not afterwards.
 */
public final class MixedMembershipGuard implements GroupGuard, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(MixedMembershipGuard.class.getName());
    /** How long the first check waits for the connection; later checks do not wait while it is down. */
    private static final Duration FIRST_CONNECT_WAIT = Duration.ofSeconds(3);

    private final CuratorFramework zk;
    private final ZkPaths paths;
    private final AtomicBoolean waitedForConnection = new AtomicBoolean();
    private final AtomicBoolean warnedUnreachable = new AtomicBoolean();

    private MixedMembershipGuard(CuratorFramework zk, ZkPaths paths) {
        this.zk = zk;
        this.paths = paths;
    }

    /** Starts connecting in the background, as the ZooKeeper membership does. */
    public static MixedMembershipGuard connect(ZooKeeperConfig config) {
        return new MixedMembershipGuard(ZooKeeperMembership.startClient(config, FIRST_CONNECT_WAIT,
                new RetryOneTime(100)), new ZkPaths(config.chroot()));
    }

    @Override
    public void check(String group) {
        List<String> members;
        try {
            if (!connected()) {
                unreachable(group, "not connected");
                return;
            }
            members = zk.getChildren().forPath(paths.ids(group));
        } catch (KeeperException.NoNodeException e) {
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (Exception e) {
            unreachable(group, e.getMessage());
            return;
        }
        if (members.isEmpty()) {
            return;
        }
        String text = "consumer group " + group + " has members that coordinate through ZooKeeper "
                      + members.stream().sorted().toList() + "; this instance uses membership: kafka and does not "
                      + "join it, or both kinds would consume every partition: move the whole group to one mode";
        LOG.log(Level.ERROR, text);
        throw new PixyException(ErrorKind.MIXED_MEMBERSHIP, text);
    }

    private boolean connected() throws InterruptedException {
        if (zk.getZookeeperClient().isConnected()) {
            return true;
        }
        if (waitedForConnection.compareAndSet(false, true)) {
            return zk.blockUntilConnected((int) FIRST_CONNECT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        return false;
    }

    private void unreachable(String group, String why) {
        if (warnedUnreachable.compareAndSet(false, true)) {
            LOG.log(Level.WARNING, "ZooKeeper (zoo_keeper.seed_peers) does not answer ({0}): group {1} is served "
                    + "without checking it for members of the ZooKeeper kind; said once", why, group);
        }
    }

    @Override
    public void close() {
        zk.close();
    }
}
