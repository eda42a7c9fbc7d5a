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
    private final Duration retryBackoff;
    private final Clock clock;
    /** Set by ZooKeeper's watch: some member's registration changed, so the assignment must be read again. */
    private final AtomicBoolean changed = new AtomicBoolean(true);
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
        Map<String, List<String>> subscriptions = registry.subscriptions();
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
        }
    }
}
