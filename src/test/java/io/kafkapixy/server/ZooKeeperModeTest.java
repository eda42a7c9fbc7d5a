package io.kafkapixy.server;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import io.kafkapixy.config.ZooKeeperConfig;
import io.kafkapixy.testing.Background;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonObject;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import io.kafkapixy.testing.TestZooKeeper;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code membership: zookeeper}: instances coordinate through the original's ZooKeeper layout, on a real ZooKeeper and
 * a real broker. Owners are read from ZooKeeper with a plain Curator client, offsets with an admin.
 */
class ZooKeeperModeTest {

    private static final Duration REBALANCE = Duration.ofSeconds(60);
    private static TestingServer zooKeeper;
    private static CuratorFramework oracle;

    private final TestKafka kafka = TestKafka.get();
    private final String topic = TestKafka.uniqueTopic("zk");
    private final String group = TestKafka.uniqueTopic("zkgroup");

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zooKeeper = TestZooKeeper.running();
        oracle = CuratorFrameworkFactory.newClient(zooKeeper.getConnectString(), new RetryOneTime(100));
        oracle.start();
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        oracle.close();
        zooKeeper.close();
    }

    @Test
    void twoInstancesSplitPartitionsByTheOriginalsRangeAssignmentAndHandThemOverOnLeave() throws Exception {
        kafka.createTopic(topic, 4);
        RunningPixy b = start("kp_b");
        try (RunningPixy a = start("kp_a")) {
            awaitOwners(List.of(a, b), Map.of(0, "kp_a", 1, "kp_a", 2, "kp_b", 3, "kp_b"));
            JsonObject consumers = object(a.get("/topics/" + topic + "/consumers?group=" + group).body())
                    .getJsonObject(group);
            assertEquals("[0,1]", consumers.getJsonArray("kp_a").toString());
            assertEquals("[2,3]", consumers.getJsonArray("kp_b").toString());
            HttpResponse<String> setOffsets = a.post("/topics/" + topic + "/offsets?group=" + group, "application/json",
                    "[{\"partition\": 0, \"offset\": 0}]");
            assertEquals(409, setOffsets.statusCode());
            assertTrue(io.kafkapixy.testing.JsonBodies.error(setOffsets.body()).contains("kp_a"), setOffsets.body());
            assertEquals("unknown consumer group nope",
                    io.kafkapixy.testing.JsonBodies.error(a.get("/topics/" + topic + "/consumers?group=nope").body()));
            Set<String> produced = produce(40);

            Set<String> consumed = consumeAll(List.of(a, b), 40);
            assertEquals(produced, consumed);

            b.close();
            awaitOwners(List.of(a), Map.of(0, "kp_a", 1, "kp_a", 2, "kp_a", 3, "kp_a"));
            assertNull(oracle.checkExists().forPath("/kp/consumers/" + group + "/ids/kp_b"));
            Set<String> more = produce(8);
            assertEquals(more, consumeAll(List.of(a), 8));
            Map<Integer, Long> ends = kafka.endOffsets(topic, 4);
            TestKafka.Waits.until(Duration.ofSeconds(30), "everything committed", () -> {
                var c = kafka.committed(group, topic);
                return c.size() == 4 && c.entrySet().stream().allMatch(e -> e.getValue().offset() == ends.get(e.getKey()));
            });
        }
        TestKafka.Waits.until(Duration.ofSeconds(30), "the group's znodes removed", () -> {
            try {
                return oracle.checkExists().forPath("/kp/consumers/" + group) == null;
            } catch (Exception e) {
                return false;
            }
        });
    }

    @Test
    void threeInstancesShareSixPartitionsTwoEach() {
        kafka.createTopic(topic, 6);
        try (RunningPixy c = start("kp_c"); RunningPixy a = start("kp_a"); RunningPixy b = start("kp_b")) {
            awaitOwners(List.of(a, b, c), Map.of(0, "kp_a", 1, "kp_a", 2, "kp_b", 3, "kp_b", 4, "kp_c", 5, "kp_c"));
            // each instance's /inflight names as its own exactly the partitions its claims in ZooKeeper hold
            for (RunningPixy p : List.of(a, b, c)) {
                TestKafka.Waits.until(REBALANCE, "/inflight matching the claims", () -> {
                    Map<Integer, String> claims = owners();
                    HttpResponse<String> rs = p.get("/inflight/default/" + group);
                    if (rs.statusCode() != 200) {
                        return false;
                    }
                    var topics = object(rs.body()).getJsonArray("clusters")
                            .getJsonObject(0).getJsonArray("groups").getJsonObject(0).getJsonArray("topics");
                    var partitions = topics.getJsonObject(0).getJsonArray("partitions");
                    if (partitions.size() != 6) {
                        return false;
                    }
                    for (int i = 0; i < 6; i++) {
                        JsonObject part = partitions.getJsonObject(i);
                        String owner = claims.get(part.getInt("partition"));
                        if (part.getBoolean("owned") != clientIdOf(p, a, b).equals(owner)) {
                            return false;
                        }
                    }
                    return true;
                });
            }
        }
    }

    private static String clientIdOf(RunningPixy p, RunningPixy a, RunningPixy b) {
        return p == a ? "kp_a" : p == b ? "kp_b" : "kp_c";
    }

    @Test
    void anInstanceWhoseSubscriptionExpiresGivesItsPartitionsAway() {
        kafka.createTopic(topic, 2);
        try (RunningPixy a = start("kp_a");
             RunningPixy b = start("kp_b", ConsumerSettingsBuilder.fast().zooKeeperMembership()
                     .subscriptionTimeout(Duration.ofSeconds(3)))) {
            awaitOwners(List.of(a, b), Map.of(0, "kp_a", 1, "kp_b"));

            awaitOwners(List.of(a), Map.of(0, "kp_a", 1, "kp_a"));

            Set<String> produced = produce(6, 2);
            assertEquals(produced, consumeAll(List.of(a), 6));
        }
    }

    @Test
    void onlyUnackedMessagesComeAgainAfterAHandOver() {
        kafka.createTopic(topic, 2);
        RunningPixy b = start("kp_b");
        try (RunningPixy a = start("kp_a")) {
            awaitOwners(List.of(a, b), Map.of(0, "kp_a", 1, "kp_b"));
            for (int i = 0; i < 6; i++) {
                kafka.produce(topic, 1, null, "b" + i);
            }
            Set<String> acked = new HashSet<>();
            Set<String> unacked = new HashSet<>();
            for (int i = 0; i < 6; i++) {
                JsonObject m = object(b.get(messages() + "&noAck").body());
                String value = new String(Base64.getDecoder().decode(m.getString("value")), StandardCharsets.UTF_8);
                if (i % 2 == 0) {
                    assertEquals(200, b.post("/topics/" + topic + "/acks?group=" + group + "&partition=1&offset="
                            + m.getJsonNumber("offset"), "text/plain", "").statusCode());
                    acked.add(value);
                } else {
                    unacked.add(value);
                }
            }
            b.close();
            awaitOwners(List.of(a), Map.of(0, "kp_a", 1, "kp_a"));

            Set<String> again = consumeAll(List.of(a), unacked.size());

            assertEquals(unacked, again);
        }
    }

    private RunningPixy start(String clientId) {
        return start(clientId, ConsumerSettingsBuilder.fast().zooKeeperMembership());
    }

    private RunningPixy start(String clientId, ConsumerSettingsBuilder consumer) {
        return RunningPixy.start(RunningPixy.config(kafka.bootstrap(), clientId, consumer,
                ZooKeeperConfig.DEFAULT.with(ZooKeeperConfig.SEED_PEERS, List.of(zooKeeper.getConnectString()))
                        .with(ZooKeeperConfig.CHROOT, "/kp")));
    }

    /** Keeps long polls going on every instance until ZooKeeper's owner nodes say {@code expected}. */
    private void awaitOwners(List<RunningPixy> instances, Map<Integer, String> expected) {
        TestKafka.Waits.until(REBALANCE, "owners " + expected, () -> {
            List<CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
            for (RunningPixy p : instances) {
                polls.add(CompletableFuture.supplyAsync(() -> p.get(messages() + "&noAck"), Background.THREADS));
            }
            polls.forEach(CompletableFuture::join);
            return owners().equals(new TreeMap<>(expected));
        });
    }

    private Map<Integer, String> owners() {
        Map<Integer, String> owners = new TreeMap<>();
        try {
            String path = "/kp/consumers/" + group + "/owners/" + topic;
            if (oracle.checkExists().forPath(path) == null) {
                return owners;
            }
            for (String p : oracle.getChildren().forPath(path)) {
                owners.put(Integer.parseInt(p), new String(oracle.getData().forPath(path + "/" + p),
                        StandardCharsets.UTF_8));
            }
        } catch (Exception e) {
            // the node changed under us: read again next time
        }
        return owners;
    }

    private Set<String> produce(int n) {
        return produce(n, 4);
    }

    private Set<String> produce(int n, int partitions) {
        Set<String> produced = new HashSet<>();
        for (int i = 0; i < n; i++) {
            kafka.produce(topic, i % partitions, null, "m" + i + "-" + n);
            produced.add("m" + i + "-" + n);
        }
        return produced;
    }

    private Set<String> consumeAll(List<RunningPixy> instances, int n) {
        return RunningPixy.consumeAll(instances, messages(), n, REBALANCE, new java.util.HashMap<>());
    }

    private String messages() {
        return "/topics/" + topic + "/messages?group=" + group;
    }
}
