package io.kafkapixy.zookeeper;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * This instance's registration in one consumer group, in the original's ZooKeeper layout:
 * {@code /consumers/<group>/ids/<member>} is an ephemeral node holding the member's subscription as the original's
 * JSON. Curator's {@link PersistentNode} recipe keeps it there: it is created again after the session is lost or
 * the node is deleted, with the data last submitted. Parents are persistent, world-readable and -writable.
 *
 * <p>Used by the group's member thread; {@link #close()} removes the registration.
 */
final class ZkGroupRegistry implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ZkGroupRegistry.class.getName());

    private final CuratorFramework zk;
    private final ZkPaths paths;
    private final String group;
    private final String member;
    private final Clock clock;
    private PersistentNode node;

    ZkGroupRegistry(CuratorFramework zk, ZkPaths paths, String group, String member, Clock clock) {
        this.zk = zk;
        this.paths = paths;
        this.group = group;
        this.member = member;
        this.clock = clock;
    }

    /**
     * Publishes the topics this member subscribes to, with a fresh timestamp (the rewritten node fires every member's
     * watch, so all re-read the group); an empty list removes the registration.
     */
    void submit(Collection<String> topics) throws Exception {
        if (topics.isEmpty()) {
            closeNode();
            return;
        }
        byte[] spec = MemberSpec.encode(topics, clock.instant().getEpochSecond());
        if (node == null) {
            ensurePersistent(paths.ids(group));
            node = new PersistentNode(zk, CreateMode.EPHEMERAL, false, paths.member(group, member), spec);
            node.start();
        } else {
            node.setData(spec);
        }
    }

    /** Waits until the member node exists (after {@link #submit}); false on timeout. */
    boolean awaitRegistered(java.time.Duration timeout) throws InterruptedException {
        return node != null && node.waitForInitialCreate(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /**
     * Every member's subscribed topics, by member id, sorted. Members whose node vanished between listing and
     * reading are skipped; a node that does not parse counts as subscribing to nothing.
     */
    Map<String, List<String>> subscriptions() throws Exception {
        Map<String, List<String>> result = new TreeMap<>(Utf8Order.COMPARATOR);
        List<String> ids;
        try {
            ids = zk.getChildren().forPath(paths.ids(group));
        } catch (KeeperException.NoNodeException e) {
            return result;
        }
        for (String id : ids) {
            try {
                byte[] data = zk.getData().forPath(paths.member(group, id));
                result.put(id, MemberSpec.decodeSubscription(data));
            } catch (KeeperException.NoNodeException vanished) {
                // left between the listing and the read
            } catch (IllegalArgumentException e) {
                LOG.log(Level.WARNING, "Bad member spec: group={0}, member={1}: {2}", group, id, e.getMessage());
                result.put(id, List.of());
            }
        }
        return result;
    }

    /**
     * Removes the group's znodes when it has no members left (the original's {@code DeleteGroupIfEmpty}): the
     * owners of each topic, sorted, then owners, ids and the group; missing nodes are fine, and anything else (a
     * member that just joined) stops it. {@code /consumers} itself stays.
     */
    void deleteGroupIfEmpty(Collection<String> topics) throws Exception {
        try {
            if (!zk.getChildren().forPath(paths.ids(group)).isEmpty()) {
                return;
            }
        } catch (KeeperException.NoNodeException e) {
            // no ids node: nothing registered, still clean up what is there
        }
        List<String> order = new ArrayList<>();
        topics.stream().sorted(Utf8Order.COMPARATOR).forEach(t -> order.add(paths.owners(group, t)));
        order.add(paths.owners(group));
        order.add(paths.ids(group));
        order.add(paths.group(group));
        for (String path : order) {
            try {
                zk.delete().forPath(path);
            } catch (KeeperException.NoNodeException gone) {
                // fine
            } catch (KeeperException e) {
                LOG.log(Level.DEBUG, "Group {0} not removed from ZooKeeper: {1}", group, e.getMessage());
                return;
            }
        }
    }

    /** Creates {@code path} and its parents as persistent nodes, as the original's "durable create" does. */
    void ensurePersistent(String path) throws Exception {
        if (zk.checkExists().forPath(path) != null) {
            return;
        }
        try {
            zk.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT).forPath(path, new byte[0]);
        } catch (KeeperException.NodeExistsException raced) {
            // another member created it first
        }
    }

    private void closeNode() throws Exception {
        if (node != null) {
            node.close();
            node = null;
        }
    }

    @Override
    public void close() throws Exception {
        closeNode();
    }
}
