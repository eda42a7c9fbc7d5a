package io.kafkapixy.zookeeper;

import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Partition ownership in the original's ZooKeeper layout (reference §4.5): {@code /consumers/<g>/owners/<t>/<p>} is an
 * ephemeral node holding the owner's member id as raw UTF-8. Claiming is idempotent for the owner; a partition owned
 * by another member is refused (the caller retries every {@code retry_backoff}); releasing deletes only one's own
 * claim, and only after the partition's final commit (the caller's duty).
 */
final class ZkPartitionClaims {

    private static final System.Logger LOG = System.getLogger(ZkPartitionClaims.class.getName());

    private final CuratorFramework zk;
    private final ZkPaths paths;
    private final String group;
    private final String member;

    ZkPartitionClaims(CuratorFramework zk, ZkPaths paths, String group, String member) {
        this.zk = zk;
        this.paths = paths;
        this.group = group;
        this.member = member;
    }

    /** The partition is claimed by another member; the message is the original's {@code owned by <id>}. */
    static final class ClaimedByOther extends Exception {
        ClaimedByOther(String owner) {
            super("owned by " + owner, null, false, false);
        }
    }

    /** Claims the partition for this member, or confirms that it already holds it. */
    void claim(String topic, int partition) throws Exception {
        String path = paths.owner(group, topic, partition);
        byte[] self = member.getBytes(StandardCharsets.UTF_8);
        try {
            zk.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path, self);
        } catch (KeeperException.NodeExistsException e) {
            String owner;
            try {
                owner = new String(zk.getData().forPath(path), StandardCharsets.UTF_8);
            } catch (KeeperException.NoNodeException released) {
                claim(topic, partition);
                return;
            }
            if (!owner.equals(member)) {
                throw new ClaimedByOther(owner);
            }
        }
    }

    /** Releases the partition if this member holds it; another member's claim is left alone. */
    void release(String topic, int partition) throws Exception {
        String path = paths.owner(group, topic, partition);
        Stat stat = new Stat();
        byte[] data;
        try {
            data = zk.getData().storingStatIn(stat).forPath(path);
        } catch (KeeperException.NoNodeException gone) {
            return;
        }
        String owner = new String(data, StandardCharsets.UTF_8);
        if (!owner.equals(member)) {
            LOG.log(Level.WARNING, "Partition {0}/{1} of group {2} is owned by {3}, not released", topic, partition,
                    group, owner);
            return;
        }
        try {
            zk.delete().withVersion(stat.getVersion()).forPath(path);
        } catch (KeeperException.NoNodeException gone) {
            // released already
        }
    }
}
