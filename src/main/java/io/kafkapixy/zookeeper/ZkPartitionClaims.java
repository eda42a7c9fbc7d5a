package io.kafkapixy.zookeeper;

import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Partition ownership in the original's ZooKeeper layout: {@code /consumers/<g>/owners/<t>/<p>} is an ephemeral node
 * holding the owner's member id as raw UTF-8. Claiming is idempotent for the owner; a partition owned by another member
 * is refused (the caller retries every {@code retry_backoff}); releasing deletes only one's own claim, and only after
 * the partition's final commit (the caller's duty).
 */
final class ZkPartitionClaims {

    private static final System.Logger LOG = System.getLogger(ZkPartitionClaims.class.getName());

    /** Tries at most this often to replace a claim of this member's left by another session. */
    private static final int MAX_ATTEMPTS = 5;

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

    /**
     * Claims the partition for this member, or confirms that it already holds it. Returns the ZooKeeper session the
     * claim lives in (its node is ephemeral: it lasts exactly as long as that session).
     */
    long claim(String topic, int partition) throws Exception {
        String path = paths.owner(group, topic, partition);
        byte[] self = member.getBytes(StandardCharsets.UTF_8);
        for (int attempt = 1; ; attempt++) {
            Stat stat = new Stat();
            try {
                zk.create().storingStatIn(stat).creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
                        .forPath(path, self);
                return stat.getEphemeralOwner();
            } catch (KeeperException.NodeExistsException e) {
                String owner;
                try {
                    owner = new String(zk.getData().storingStatIn(stat).forPath(path), StandardCharsets.UTF_8);
                } catch (KeeperException.NoNodeException released) {
                    continue;
                }
                if (!owner.equals(member)) {
                    throw new ClaimedByOther(owner);
                }
                if (stat.getEphemeralOwner() == currentSession()) {
                    return stat.getEphemeralOwner();
                }
                if (attempt >= MAX_ATTEMPTS) {
                    // another process with this client_id keeps claiming it: a misconfiguration, not ours to win
                    throw new ClaimedByOther(owner + " in another session");
                }
                // Ours, but made in a session this client has left: the server drops it when that session times out
                // there, and nothing would tell us. Made again in the current session instead.
                try {
                    zk.delete().withVersion(stat.getVersion()).forPath(path);
                } catch (KeeperException.NoNodeException | KeeperException.BadVersionException gone) {
                    // gone or changed meanwhile: look again
                }
            }
        }
    }

    /**
     * The session this client holds now. An expired session lingers on the server until it times out there, its nodes
     * with it, while the client has already moved to a new one; claims of the old one are as good as gone.
     */
    long currentSession() throws Exception {
        return zk.getZookeeperClient().getZooKeeper().getSessionId();
    }

    /**
     * Whether the claim made in {@code session} still stands: its node exists, names this member and belongs to that
     * session. False when the session expired meanwhile, even if the node was made again since (by another member, or
     * by this one in a new session): what was fetched and offered under the old claim is stale.
     */
    boolean stillHeld(String topic, int partition, long session) throws Exception {
        Stat stat = new Stat();
        byte[] data;
        try {
            data = zk.getData().storingStatIn(stat).forPath(paths.owner(group, topic, partition));
        } catch (KeeperException.NoNodeException gone) {
            return false;
        }
        return stat.getEphemeralOwner() == session && new String(data, StandardCharsets.UTF_8).equals(member);
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
