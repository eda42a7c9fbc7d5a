package io.kafkapixy.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import io.kafkapixy.testing.TestKafka;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import io.kafkapixy.testing.TestZooKeeper;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Registration and partition claims in the original's ZooKeeper layout, on a real ZooKeeper (curator-test), read back
 * byte for byte with a separate plain Curator client.
 */
class ZooKeeperLayoutTest {

    private static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");
    private static TestingServer server;

    private final ZkPaths paths = new ZkPaths("/kafka");
    private final String group = TestKafka.uniqueTopic("g");
    private CuratorFramework a;
    private CuratorFramework b;
    private CuratorFramework oracle;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        server = TestZooKeeper.running();
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        server.close();
    }

    @BeforeEach
    void connect() throws Exception {
        a = client();
        b = client();
        oracle = client();
    }

    @AfterEach
    void disconnect() {
        a.close();
        b.close();
        oracle.close();
    }

    @Test
    void aMemberIsAnEphemeralNodeWithTheOriginalsJsonUnderPersistentParents() throws Exception {
        try (ZkGroupRegistry registry = registry(a, "kp_a_1")) {
            registry.submit(List.of("topicB", "topicA"));
            assertTrue(registry.awaitRegistered(Duration.ofSeconds(30)));

            String path = "/kafka/consumers/" + group + "/ids/kp_a_1";
            Stat stat = new Stat();
            byte[] data = oracle.getData().storingStatIn(stat).forPath(path);

            assertEquals("{\"subscription\":{\"topicA\":1,\"topicB\":1},\"pattern\":\"static\",\"timestamp\":"
                         + NOW.getEpochSecond() + ",\"version\":1}", new String(data, StandardCharsets.UTF_8));
            assertNotEquals(0, stat.getEphemeralOwner());
            for (String parent : List.of("/kafka/consumers", "/kafka/consumers/" + group,
                    "/kafka/consumers/" + group + "/ids")) {
                assertEquals(0, oracle.checkExists().forPath(parent).getEphemeralOwner(), parent);
            }
            List<ACL> acl = oracle.getACL().forPath(path);
            assertEquals(ZooDefs.Ids.OPEN_ACL_UNSAFE, acl);
        }
    }

    @Test
    void subscriptionsOfAllMembersAreReadAndAnEmptySubmitLeaves() throws Exception {
        try (ZkGroupRegistry ra = registry(a, "kp_a_1"); ZkGroupRegistry rb = registry(b, "kp_b_2")) {
            ra.submit(List.of("t1", "t2"));
            rb.submit(List.of("t1"));
            ra.awaitRegistered(Duration.ofSeconds(30));
            rb.awaitRegistered(Duration.ofSeconds(30));

            assertEquals(Map.of("kp_a_1", List.of("t1", "t2"), "kp_b_2", List.of("t1")), ra.subscriptions());

            rb.submit(List.of());
            TestKafka.Waits.until(Duration.ofSeconds(30), "b gone", () -> {
                try {
                    return ra.subscriptions().keySet().equals(java.util.Set.of("kp_a_1"));
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    @Test
    void aRegistrationComesBackAfterTheNodeIsDeletedOrTheSessionExpires() throws Exception {
        try (ZkGroupRegistry registry = registry(a, "kp_a_1")) {
            registry.submit(List.of("t1"));
            registry.awaitRegistered(Duration.ofSeconds(30));
            String path = "/kafka/consumers/" + group + "/ids/kp_a_1";
            byte[] data = oracle.getData().forPath(path);

            oracle.delete().forPath(path);
            awaitNode(path);
            assertArrayEquals(data, oracle.getData().forPath(path));

            a.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
            awaitNode(path);
            assertArrayEquals(data, oracle.getData().forPath(path));
        }
    }

    @Test
    void theGroupsZnodesAreRemovedWhenTheLastMemberLeaves() throws Exception {
        ZkGroupRegistry registry = registry(a, "kp_a_1");
        registry.submit(List.of("t1"));
        registry.awaitRegistered(Duration.ofSeconds(30));
        new ZkPartitionClaims(a, paths, group, "kp_a_1").claim("t1", 0);
        new ZkPartitionClaims(a, paths, group, "kp_a_1").release("t1", 0);

        registry.close();
        registry.deleteGroupIfEmpty(List.of("t1"));

        assertNull(oracle.checkExists().forPath("/kafka/consumers/" + group));
        assertTrue(oracle.checkExists().forPath("/kafka/consumers") != null);
    }

    @Test
    void aPartitionIsClaimedByOneMemberAtATime() throws Exception {
        ZkPartitionClaims byA = new ZkPartitionClaims(a, paths, group, "kp_a_1");
        ZkPartitionClaims byB = new ZkPartitionClaims(b, paths, group, "kp_b_2");
        String path = "/kafka/consumers/" + group + "/owners/t1/3";

        byA.claim("t1", 3);
        byA.claim("t1", 3);
        ZkPartitionClaims.ClaimedByOther refused = assertThrows(ZkPartitionClaims.ClaimedByOther.class,
                () -> byB.claim("t1", 3));
        byB.release("t1", 3);

        assertEquals("owned by kp_a_1", refused.getMessage());
        assertEquals("kp_a_1", new String(oracle.getData().forPath(path), StandardCharsets.UTF_8));
        assertNotEquals(0, oracle.checkExists().forPath(path).getEphemeralOwner());

        byA.release("t1", 3);
        byB.claim("t1", 3);
        assertEquals("kp_b_2", new String(oracle.getData().forPath(path), StandardCharsets.UTF_8));
    }

    private ZkGroupRegistry registry(CuratorFramework zk, String member) {
        return new ZkGroupRegistry(zk, paths, group, member, Clock.fixed(NOW, ZoneOffset.UTC));
    }

    private void awaitNode(String path) {
        TestKafka.Waits.until(Duration.ofSeconds(30), path, () -> {
            try {
                return oracle.checkExists().forPath(path) != null;
            } catch (Exception e) {
                return false;
            }
        });
    }

    private static CuratorFramework client() throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.newClient(server.getConnectString(), 10_000, 10_000,
                new RetryOneTime(100));
        c.start();
        if (!c.blockUntilConnected(30, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new AssertionError("ZooKeeper not reachable");
        }
        return c;
    }
}
