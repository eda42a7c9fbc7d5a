package io.kafkapixy.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import io.kafkapixy.consumer.PartitionLifecycle;
import io.kafkapixy.consumer.PauseWatch;
import io.kafkapixy.consumer.ServingGate;
import io.kafkapixy.testing.TestKafka;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import io.kafkapixy.testing.TestZooKeeper;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A ZooKeeper member's partitions on a real ZooKeeper, with Kafka's MockConsumer standing in for the consumer:
 * assignment follows the registrations, and a claim lasts only as long as its session: after a session expiry or a
 * pause of the whole process, nothing is handed out until the claims have been checked.
 */
class ZkMembershipTest {

    private static final Node NODE = new Node(1, "h", 9092);
    private static TestingServer server;

    private final ZkPaths paths = new ZkPaths("");
    private final String group = TestKafka.uniqueTopic("g");
    /** The process's monotonic clock as the pause watch reads it; moved by hand. */
    private final java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
    private final PauseWatch pauses = PauseWatch.manual(nanos::get);
    private CuratorFramework zk;
    private CuratorFramework oracle;

    @BeforeAll
    static void start() throws Exception {
        server = TestZooKeeper.running();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    @BeforeEach
    void connect() throws Exception {
        zk = client();
        oracle = client();
    }

    @AfterEach
    void disconnect() {
        zk.close();
        oracle.close();
    }

    @Test
    void aMemberWhoseSessionExpiredHandsOutNothingThenDropsItsClaimsUncommittedAndClaimsThemAfresh()
            throws Exception {
        MockConsumer<byte[], byte[]> kafka = consumer(2);
        Recorded lifecycle = new Recorded();
        ZkMembership membership = new ZkMembership(zk, paths, group, "kp_a", kafka, lifecycle, Duration.ofMillis(100),
                Clock.systemUTC(), pauses);

        TestKafka.Waits.until(Duration.ofSeconds(30), "both partitions", () -> {
            membership.follow(Set.of("t"));
            return kafka.assignment().size() == 2;
        });
        assertEquals(Set.of(tp(0), tp(1)), Set.copyOf(lifecycle.assigned));
        assertEquals("kp_a", owner(0));

        assertTrue(lifecycle.gate.open());

        zk.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        TestKafka.Waits.until(Duration.ofSeconds(30), "the gate shut", () -> !lifecycle.gate.open());
        TestKafka.Waits.until(Duration.ofSeconds(30), "claims made again", () -> {
            membership.follow(Set.of("t"));
            return lifecycle.assigned.size() >= 4 && lifecycle.gate.open() && claimedInCurrentSession(0)
                   && claimedInCurrentSession(1);
        });

        assertEquals(List.of(tp(0), tp(1)), sorted(lifecycle.lost).stream().distinct().toList(),
                "dropped uncommitted, not revoked");
        assertTrue(lifecycle.revoked.isEmpty());
        assertEquals("kp_a", owner(0));
        assertEquals("kp_a", owner(1));
        assertEquals(2, kafka.assignment().size());
        assertTrue(lifecycle.gateOpened.get() >= 1, "the requests that waited are served");
        membership.leave();
    }

    @Test
    void afterThePauseOfTheWholeProcessNothingIsHandedOutUntilTheClaimsAreChecked() throws Exception {
        MockConsumer<byte[], byte[]> kafka = consumer(2);
        Recorded lifecycle = new Recorded();
        ZkMembership membership = new ZkMembership(zk, paths, group, "kp_a", kafka, lifecycle, Duration.ofMillis(100),
                Clock.systemUTC(), pauses);
        TestKafka.Waits.until(Duration.ofSeconds(30), "both partitions", () -> {
            membership.follow(Set.of("t"));
            return kafka.assignment().size() == 2;
        });
        assertTrue(lifecycle.gate.open());

        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        assertTrue(!lifecycle.gate.open(), "stood still: shut before the watch has even ticked");
        membership.follow(Set.of("t"));
        assertTrue(!lifecycle.gate.open(), "not checked while the pause is uncounted");
        pauses.tick();
        assertTrue(!lifecycle.gate.open(), "a pause was counted: shut until checked");

        membership.follow(Set.of("t"));

        assertTrue(lifecycle.gate.open());
        assertEquals(1, lifecycle.gateOpened.get());
        assertTrue(lifecycle.lost.isEmpty(), "the session outlived the pause: the claims stand");
        assertEquals(2, kafka.assignment().size());
        membership.leave();
    }

    @Test
    void aPartitionClaimedByAnotherMemberWhileTheSessionWasAwayIsGivenUp() throws Exception {
        MockConsumer<byte[], byte[]> kafka = consumer(2);
        Recorded lifecycle = new Recorded();
        ZkMembership membership = new ZkMembership(zk, paths, group, "kp_a", kafka, lifecycle, Duration.ofMillis(100),
                Clock.systemUTC(), pauses);
        TestKafka.Waits.until(Duration.ofSeconds(30), "both partitions", () -> {
            membership.follow(Set.of("t"));
            return kafka.assignment().size() == 2;
        });

        zk.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        TestKafka.Waits.until(Duration.ofSeconds(30), "the claims gone with the session", () -> owner(1) == null);
        new ZkPartitionClaims(oracle, paths, group, "kp_other").claim("t", 1);
        TestKafka.Waits.until(Duration.ofSeconds(30), "partition 1 given up", () -> {
            membership.follow(Set.of("t"));
            return kafka.assignment().equals(Set.of(tp(0)));
        });

        assertEquals(List.of(tp(0), tp(1)), sorted(lifecycle.lost).stream().distinct().toList(),
                "both claims died with the session");
        assertTrue(lifecycle.revoked.isEmpty(), "nothing committed for a partition another member may have moved on");
        assertEquals("kp_a", owner(0), "claimed afresh");
        assertEquals("kp_other", owner(1));
        membership.leave();
    }

    @Test
    void aRegistrationOverwrittenByAnotherClientIsWrittenAgain() throws Exception {
        MockConsumer<byte[], byte[]> kafka = consumer(1);
        ZkMembership membership = new ZkMembership(zk, paths, group, "kp_a", kafka, new Recorded(),
                Duration.ofMillis(100), Clock.systemUTC(), pauses);
        TestKafka.Waits.until(Duration.ofSeconds(30), "the partition", () -> {
            membership.follow(Set.of("t"));
            return kafka.assignment().size() == 1;
        });
        String node = paths.member(group, "kp_a");

        oracle.setData().forPath(node, "{\"subscription\":{\"other\":1}}".getBytes(StandardCharsets.UTF_8));
        TestKafka.Waits.until(Duration.ofSeconds(30), "our subscription back", () -> {
            membership.follow(Set.of("t"));
            try {
                return MemberSpec.decodeSubscription(oracle.getData().forPath(node)).equals(List.of("t"));
            } catch (Exception e) {
                return false;
            }
        });

        assertEquals(1, kafka.assignment().size());
        membership.leave();
    }

    private MockConsumer<byte[], byte[]> consumer(int partitions) {
        MockConsumer<byte[], byte[]> kafka = new MockConsumer<>("earliest");
        List<PartitionInfo> infos = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            infos.add(new PartitionInfo("t", p, NODE, new Node[]{NODE}, new Node[]{NODE}));
        }
        kafka.updatePartitions("t", infos);
        return kafka;
    }

    private String owner(int partition) {
        try {
            return new String(oracle.getData().forPath(paths.owner(group, "t", partition)), StandardCharsets.UTF_8);
        } catch (Exception e) {
            return null;
        }
    }

    /** The owner node of a partition names kp_a and lives in the session {@code zk} has now. */
    private boolean claimedInCurrentSession(int partition) {
        try {
            org.apache.zookeeper.data.Stat stat = new org.apache.zookeeper.data.Stat();
            byte[] data = oracle.getData().storingStatIn(stat).forPath(paths.owner(group, "t", partition));
            return "kp_a".equals(new String(data, StandardCharsets.UTF_8))
                   && stat.getEphemeralOwner() == zk.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return false;
        }
    }

    private static List<TopicPartition> sorted(List<TopicPartition> tps) {
        return tps.stream().sorted(java.util.Comparator.comparingInt(TopicPartition::partition)).toList();
    }

    private static TopicPartition tp(int p) {
        return new TopicPartition("t", p);
    }

    private static CuratorFramework client() throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.newClient(server.getConnectString(), 10_000, 10_000,
                new RetryOneTime(100));
        c.start();
        c.blockUntilConnected(30, java.util.concurrent.TimeUnit.SECONDS);
        return c;
    }

    /** Records what the membership hands to the member. */
    private static final class Recorded implements PartitionLifecycle {
        final List<TopicPartition> assigned = new CopyOnWriteArrayList<>();
        final List<TopicPartition> revoked = new CopyOnWriteArrayList<>();
        final List<TopicPartition> lost = new CopyOnWriteArrayList<>();
        final java.util.concurrent.atomic.AtomicInteger gateOpened = new java.util.concurrent.atomic.AtomicInteger();
        volatile ServingGate gate;

        @Override
        public void topicWanted(String topic) {
        }

        @Override
        public void assigned(Collection<TopicPartition> partitions) {
            assigned.addAll(partitions);
        }

        @Override
        public void revoked(Collection<TopicPartition> partitions) {
            revoked.addAll(partitions);
        }

        @Override
        public void lost(Collection<TopicPartition> partitions) {
            lost.addAll(partitions);
        }

        @Override
        public void guardWith(ServingGate gate) {
            this.gate = gate;
        }

        @Override
        public void gateOpened() {
            gateOpened.incrementAndGet();
        }
    }
}
