package io.kafkapixy.server;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.kafkapixy.config.ZooKeeperConfig;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.JsonBodies;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import mailgun.kafkapixy.ConsNAckRq;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@code membership: kafka} instance whose config names {@code zoo_keeper.seed_peers} refuses to consume as a group
 * that has members registered in ZooKeeper the way the original registers them, and serves it when ZooKeeper has none
 * or does not answer. Real ZooKeeper, real broker.
 */
class MixedMembershipGuardTest {

    private static TestingServer zooKeeper;
    private static CuratorFramework original;

    private final TestKafka kafka = TestKafka.get();
    private final String topic = TestKafka.uniqueTopic("guarded");
    private final String group = TestKafka.uniqueTopic("mixed");

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zooKeeper = new TestingServer(true);
        original = CuratorFrameworkFactory.newClient(zooKeeper.getConnectString(), new RetryOneTime(100));
        original.start();
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        original.close();
        zooKeeper.close();
    }

    /** An original Kafka-Pixy's registration: an ephemeral node with its subscription, in its JSON. */
    private void registerOriginalMember(String id) throws Exception {
        original.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
                .forPath("/kp/consumers/" + group + "/ids/" + id, ("{\"subscription\":{\"" + topic + "\":1},"
                        + "\"pattern\":\"static\",\"timestamp\":1764633600,\"version\":1}")
                        .getBytes(StandardCharsets.UTF_8));
    }

    private RunningPixy kafkaModeWithZooKeeper(String peers) {
        return RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_guarded", ConsumerSettingsBuilder.fast(),
                ZooKeeperConfig.DEFAULT.with(ZooKeeperConfig.SEED_PEERS, List.of(peers)).with(ZooKeeperConfig.CHROOT, "/kp")));
    }

    private String messages() {
        return "/topics/" + topic + "/messages?group=" + group;
    }

    @Test
    void aGroupWithMembersInZooKeeperIsRefusedOverBothApisAndServedOnceTheyAreGone() throws Exception {
        kafka.createTopic(topic, 1);
        registerOriginalMember("pixy_original_1");
        try (RunningPixy pixy = kafkaModeWithZooKeeper(zooKeeper.getConnectString())) {
            HttpResponse<String> refused = pixy.get(messages());
            assertEquals(503, refused.statusCode());
            String text = JsonBodies.error(refused.body());
            assertTrue(text.contains(group) && text.contains("pixy_original_1") && text.contains("membership: kafka"),
                    text);

            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> pixy.grpc()
                    .consumeNAck(ConsNAckRq.newBuilder().setTopic(topic).setGroup(group).setNoAck(true).build()));
            assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
            assertEquals(text, e.getStatus().getDescription());
            assertTrue(kafka.admin().listGroups().all().get().stream().noneMatch(g -> g.groupId().equals(group)),
                    "this instance did not join the group in Kafka");

            original.delete().forPath("/kp/consumers/" + group + "/ids/pixy_original_1");
            kafka.produce(topic, 0, null, "after the migration");
            TestKafka.Waits.until(Duration.ofSeconds(60), "the group is served", () -> {
                HttpResponse<String> rs = pixy.get(messages());
                return rs.statusCode() == 200 || rs.statusCode() == 408;
            });
        }
    }

    @Test
    void aGroupIsServedWhenZooKeeperDoesNotAnswer() throws Exception {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = kafkaModeWithZooKeeper("127.0.0.1:" + freePort())) {
            HttpResponse<String> rs = pixy.get(messages());
            assertEquals(408, rs.statusCode(), rs.body());
            TestKafka.Waits.until(Duration.ofSeconds(30), "a member of the group",
                    () -> !kafka.assignment(group, topic).isEmpty());
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
