package io.kafkapixy.zookeeper;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import io.kafkapixy.consumer.Membership;
import io.kafkapixy.consumer.PartitionLifecycle;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Membership in the original's ZooKeeper layout (design.md §1, {@code membership: zookeeper}; reference §4.3–§4.5),
 * so instances of this project and of the original can share a group: the member registers its topics, every member
 * computes the same range assignment from the registrations (§4.4), and a partition is consumed only once its owner
 * node is claimed (§4.5). Partitions are given to the consumer with {@code assign}, so its commits carry generation
 * -1 like the original's.
 *
 * <p>On the member's owning thread only; {@link #leave()} runs after the final commit.
 */
final class ZkMembership implements Membership {

    private static final System.Logger LOG = System.getLogger(ZkMembership.class.getName());

    private final String group;
    private final String member;
    private final Consumer<byte[], byte[]> kafka;
    private final PartitionLifecycle lifecycle;
    private final ZkGroupRegistry registry;
    private final ZkPartitionClaims claims;
    private final CuratorCache watch;
    private final CuratorFramework zk;
    private final ConnectionStateListener sessionListener;
    private final Duration retryBackoff;
    private final Clock clock;
    /** Set by ZooKeeper's watch: some member's registration changed, so the assignment must be read again. */
    private final AtomicBoolean changed = new AtomicBoolean(true);
    /**
     * Set when the ZooKeeper session may have been lost: owner nodes are ephemeral, so the claims of the partitions
     * held must be checked, and made again, before consuming on.
     */
    private final AtomicBoolean reclaim = new AtomicBoolean(false);
    private Set<String> registered = Set.of();
    private final Set<TopicPartition> owned = new HashSet<>();
    private Instant retryAt = Instant.MIN;
    private Instant lastSubmit = Instant.MIN;

    ZkMembership(CuratorFramework zk, ZkPaths paths, String group, String member, Consumer<byte[], byte[]> kafka,
                 PartitionLifecycle lifecycle, Duration retryBackoff, Clock clock) {
        this.group = group;
        this.member = member;
        this.kafka = kafka;
        this.lifecycle = lifecycle;
        this.registry = new ZkGroupRegistry(zk, paths, group, member, clock);
        this.claims = new ZkPartitionClaims(zk, paths, group, member);
        this.retryBackoff = retryBackoff;
        this.clock = clock;
        this.watch = CuratorCache.build(zk, paths.ids(group));
        watch.listenable().addListener((type, oldData, data) -> changed.set(true));
        watch.start();
        this.zk = zk;
        this.sessionListener = (client, state) -> {
            if (state == ConnectionState.LOST || state == ConnectionState.RECONNECTED
                || state == ConnectionState.SUSPENDED) {
                reclaim.set(true);
                changed.set(true);
            }
        };
        zk.getConnectionStateListenable().addListener(sessionListener);
    }

    @Override
    public void follow(Set<String> wanted) {
        Instant now = clock.instant();
        try {
            if (!wanted.equals(registered)) {
                for (String topic : wanted) {
                    if (!registered.contains(topic)) {
                        lifecycle.topicWanted(topic);
                    }
                }
                registry.submit(wanted);
                lastSubmit = now;
                registered = Set.copyOf(wanted);
                changed.set(true);
                LOG.log(Level.INFO, "Submitted: group={0}, topics={1}", group, wanted);
            }
            if (!changed.getAndSet(false) && now.isBefore(retryAt)) {
                return;
            }
            rebalance(now);
        } catch (Exception e) {
            LOG.log(Level.WARNING, "Group {0}: ZooKeeper membership failed ({1}); retrying in {2}", group,
                    e.getMessage(), retryBackoff);
            retryAt = now.plus(retryBackoff);
            changed.set(true);
        }
    }

    private void rebalance(Instant now) throws Exception {
        if (reclaim.getAndSet(false)) {
            verifyClaims();
        }
        Map<String, List<String>> subscriptions = registry.subscriptions();
        List<String> mine = subscriptions.get(member);
        if (mine == null || !Set.copyOf(mine).equals(registered)) {
            // Our own registration is missing or stale (the session was lost and the node is being written again):
            // a rebalance on this view would give everything away. Wait for ZooKeeper to show it (§4.3).
            LOG.log(Level.INFO, "Outdated subscription: group={0}, want={1}, got={2}", group, registered, mine);
            if (!now.isBefore(lastSubmit.plus(retryBackoff))) {
                registry.submit(registered);
                lastSubmit = now;
            }
            retryAt = now.plus(retryBackoff);
            return;
        }
        Map<String, List<Integer>> partitionsByTopic = new HashMap<>();
        for (String topic : registered) {
            List<PartitionInfo> infos = kafka.partitionsFor(topic, Duration.ofSeconds(5));
            if (infos == null || infos.isEmpty()) {
                LOG.log(Level.WARNING, "Topic {0} missing", topic);
                continue;
            }
            partitionsByTopic.put(topic, infos.stream().map(PartitionInfo::partition).toList());
        }
        Set<TopicPartition> desired = new HashSet<>();
        RangeAssignment.resolvePartitions(member, subscriptions, partitionsByTopic)
                .forEach((topic, parts) -> parts.forEach(p -> desired.add(new TopicPartition(topic, p))));

        Set<TopicPartition> released = new HashSet<>(owned);
        released.removeAll(desired);
        if (!released.isEmpty()) {
            lifecycle.revoked(released);
            for (TopicPartition tp : released) {
                claims.release(tp.topic(), tp.partition());
            }
            owned.removeAll(released);
            kafka.assign(owned);
        }

        List<TopicPartition> claimed = new ArrayList<>();
        boolean refused = false;
        for (TopicPartition tp : desired) {
            if (owned.contains(tp)) {
                continue;
            }
            try {
                claims.claim(tp.topic(), tp.partition());
                claimed.add(tp);
            } catch (ZkPartitionClaims.ClaimedByOther e) {
                LOG.log(Level.INFO, "Failed to claim partition: group={0}, partition={1}: {2}", group, tp,
                        e.getMessage());
                refused = true;
            }
        }
        if (!claimed.isEmpty()) {
            owned.addAll(claimed);
            kafka.assign(owned);
            lifecycle.assigned(claimed);
        }
        if (refused) {
            retryAt = now.plus(retryBackoff);
            // Rewriting our registration makes every member re-read the group (§4.3), so a member still holding
            // a partition it should give up notices.
            if (!now.isBefore(lastSubmit.plus(retryBackoff))) {
                registry.submit(registered);
                lastSubmit = now;
            }
        } else {
            retryAt = Instant.MAX;
        }
    }

    /**
     * After a possible session loss: claims the held partitions again; one that another member claimed meanwhile is
     * no longer ours, so it stops here (its acked offsets are committed, and it is not released: it is not ours).
     */
    private void verifyClaims() throws Exception {
        Set<TopicPartition> lost = new HashSet<>();
        for (TopicPartition tp : owned) {
            try {
                claims.claim(tp.topic(), tp.partition());
            } catch (ZkPartitionClaims.ClaimedByOther e) {
                LOG.log(Level.WARNING, "Partition {0} of group {1} was claimed by another member while ZooKeeper "
                                       + "was away: {2}", tp, group, e.getMessage());
                lost.add(tp);
            }
        }
        if (!lost.isEmpty()) {
            lifecycle.revoked(lost);
            owned.removeAll(lost);
            kafka.assign(owned);
        }
    }

    /** Releases the claims (the final commit is done), deregisters, and removes the group's znodes if it was last. */
    @Override
    public void leave() {
        try {
            for (TopicPartition tp : owned) {
                claims.release(tp.topic(), tp.partition());
            }
            owned.clear();
            registry.close();
            registry.deleteGroupIfEmpty(registered);
        } catch (Exception e) {
            LOG.log(Level.WARNING, "Group {0}: leaving ZooKeeper failed: {1}", group, e.getMessage());
        } finally {
            watch.close();
            zk.getConnectionStateListenable().removeListener(sessionListener);
        }
    }
}
