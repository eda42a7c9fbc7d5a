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
import java.util.concurrent.atomic.AtomicLong;

import io.kafkapixy.consumer.Membership;
import io.kafkapixy.consumer.PartitionLifecycle;
import io.kafkapixy.consumer.PauseWatch;
import io.kafkapixy.consumer.ServingGate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Membership in the original's ZooKeeper layout ({@code membership: zookeeper}), so instances of this project and of
 * the original can share a group during a migration: the member registers its topics under
 * {@code /consumers/<group>/ids}, every member computes the same range assignment from the registrations, and a
 * partition is consumed only once its owner node under {@code /consumers/<group>/owners} is claimed. Partitions are
 * given to the consumer with {@code assign}, so its commits carry generation -1 like the original's.
 *
 * <p>A claim lasts as long as the ZooKeeper session it was made in. When that session may have ended unseen (the
 * connection was suspended or lost, or the whole process stood still, see {@link PauseWatch}) the member hands out
 * nothing ({@link ServingGate}) until it has checked each claim against ZooKeeper: a partition whose claim did not
 * survive is dropped as lost, without a commit (another member may have moved it on meanwhile), and claimed afresh if
 * it is still this member's, starting again from the committed offset.
 *
 * <p>On the member's owning thread only, but for the gate, which request threads read; {@link #leave()} runs after
 * the final commit.
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
    private final PauseWatch pauses;
    /** Counts the times the ZooKeeper session may have been lost (the connection was suspended, lost or renewed). */
    private final AtomicLong doubts = new AtomicLong();
    /** The {@link #doubts} and pause epoch as of the last check of the claims; the gate is open while both hold. */
    private volatile long checkedDoubts;
    private volatile long checkedEpoch;
    private Set<String> registered = Set.of();
    /** The partitions claimed, with the session each claim lives in. */
    private final Map<TopicPartition, Long> owned = new HashMap<>();
    private Instant retryAt = Instant.MIN;
    private Instant lastSubmit = Instant.MIN;

    ZkMembership(CuratorFramework zk, ZkPaths paths, String group, String member, Consumer<byte[], byte[]> kafka,
                 PartitionLifecycle lifecycle, Duration retryBackoff, Clock clock, PauseWatch pauses) {
        this.group = group;
        this.member = member;
        this.kafka = kafka;
        this.lifecycle = lifecycle;
        this.registry = new ZkGroupRegistry(zk, paths, group, member, clock);
        this.claims = new ZkPartitionClaims(zk, paths, group, member);
        this.retryBackoff = retryBackoff;
        this.clock = clock;
        this.pauses = pauses;
        this.checkedEpoch = pauses.epochIfAwake();
        this.watch = CuratorCache.build(zk, paths.ids(group));
        watch.listenable().addListener((type, oldData, data) -> changed.set(true));
        watch.start();
        this.zk = zk;
        this.sessionListener = (client, state) -> {
            if (state == ConnectionState.LOST || state == ConnectionState.RECONNECTED
                || state == ConnectionState.SUSPENDED) {
                doubts.incrementAndGet();
                changed.set(true);
            }
        };
        zk.getConnectionStateListenable().addListener(sessionListener);
        lifecycle.guardWith(this::claimsConfirmed);
    }

    /** The gate: no doubt about the session, and no pause, since the claims were last checked. */
    private boolean claimsConfirmed() {
        long epoch = pauses.epochIfAwake();
        return epoch >= 0 && doubts.get() == checkedDoubts && epoch == checkedEpoch;
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
            long epoch = pauses.epochIfAwake();
            long doubt = doubts.get();
            boolean check = epoch < 0 || doubt != checkedDoubts || epoch != checkedEpoch;
            if (!changed.getAndSet(false) && now.isBefore(retryAt) && !check) {
                return;
            }
            if (check) {
                if (epoch < 0) {
                    // Just woken from a pause the ticker has not counted yet: check once it has.
                    changed.set(true);
                    return;
                }
                checkClaims();
                checkedDoubts = doubt;
                checkedEpoch = epoch;
            }
            rebalance(now);
            if (check) {
                lifecycle.gateOpened();
            }
        } catch (Exception e) {
            LOG.log(Level.WARNING, "Group {0}: ZooKeeper membership failed ({1}); retrying in {2}", group,
                    e.getMessage(), retryBackoff);
            retryAt = now.plus(retryBackoff);
            changed.set(true);
        }
    }

    private void rebalance(Instant now) throws Exception {
        Map<String, List<String>> subscriptions = registry.subscriptions();
        List<String> mine = subscriptions.get(member);
        if (mine == null || !Set.copyOf(mine).equals(registered)) {
            // Our own registration is missing or stale (the session was lost and the node is being written again):
            // a rebalance on this view would give everything away. Wait for ZooKeeper to show it.
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

        Set<TopicPartition> released = new HashSet<>(owned.keySet());
        released.removeAll(desired);
        if (!released.isEmpty()) {
            lifecycle.revoked(released);
            for (TopicPartition tp : released) {
                claims.release(tp.topic(), tp.partition());
            }
            owned.keySet().removeAll(released);
            kafka.assign(owned.keySet());
        }

        List<TopicPartition> claimed = new ArrayList<>();
        boolean refused = false;
        for (TopicPartition tp : desired) {
            if (owned.containsKey(tp)) {
                continue;
            }
            try {
                owned.put(tp, claims.claim(tp.topic(), tp.partition()));
                claimed.add(tp);
            } catch (ZkPartitionClaims.ClaimedByOther e) {
                LOG.log(Level.INFO, "Failed to claim partition: group={0}, partition={1}: {2}", group, tp,
                        e.getMessage());
                refused = true;
            }
        }
        if (!claimed.isEmpty()) {
            kafka.assign(owned.keySet());
            lifecycle.assigned(claimed);
        }
        if (refused) {
            retryAt = now.plus(retryBackoff);
            // Rewriting our registration fires every member's watch and makes it re-read the group, so a member holding
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
     * After a possible session loss or a pause: every claim must still stand in the session it was made in. One that
     * does not is lost: what this member fetched, offered and had acked for it is dropped uncommitted (another member
     * may have consumed and committed it since; the acks not committed yet are offered again, at least once), and the
     * rebalance that follows claims it afresh if it is still this member's.
     */
    private void checkClaims() throws Exception {
        Set<TopicPartition> lost = new HashSet<>();
        for (Map.Entry<TopicPartition, Long> claim : owned.entrySet()) {
            TopicPartition tp = claim.getKey();
            if (!claims.stillHeld(tp.topic(), tp.partition(), claim.getValue())) {
                lost.add(tp);
            }
        }
        // Read after the round trips above, which wait for a connection: the session they were answered in.
        long session = claims.currentSession();
        owned.forEach((tp, claimedIn) -> {
            if (claimedIn != session) {
                lost.add(tp);
            }
        });
        if (!lost.isEmpty()) {
            LOG.log(Level.WARNING, "Group {0}: the claims of {1} did not survive the ZooKeeper session; dropping them "
                                   + "uncommitted", group, lost);
            lifecycle.lost(lost);
            owned.keySet().removeAll(lost);
            kafka.assign(owned.keySet());
        }
    }

    /** Releases the claims (the final commit is done), deregisters, and removes the group's znodes if it was last. */
    @Override
    public void leave() {
        try {
            for (TopicPartition tp : owned.keySet()) {
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
