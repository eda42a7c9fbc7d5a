package io.kafkapixy.server;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

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
import io.kafkapixy.testing.TestZooKeeper;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.awaitility.Awaitility;
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
        zooKeeper = TestZooKeeper.running();
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
    void aGroupIsServedAtOnceWhenZooKeeperDoesNotAnswerAndGetsWhatIsProducedAfterItsFirstPoll() throws Exception {
        kafka.createTopic(topic, 1);
        int port = freePort();
        try (ZooKeeperLines lines = new ZooKeeperLines(port);
             RunningPixy pixy = kafkaModeWithZooKeeper("127.0.0.1:" + port)) {
            HttpResponse<String> first = pixy.get(messages());
            assertEquals(408, first.statusCode(), first.body());
            kafka.produce(topic, 0, null, "right after the first poll");
            HttpResponse<String> next = pixy.get(messages());
            assertEquals(200, next.statusCode(), "the group had joined when its first poll ended: " + next.body());

            // a gone ZooKeeper is said once, not every reconnect attempt of a client
            Awaitility.await("no more lines about ZooKeeper").during(Duration.ofSeconds(6))
                    .atMost(Duration.ofSeconds(20)).until(() -> lines.size() <= 1);
            assertEquals(1, lines.size(), lines.toString());
            assertTrue(lines.first().contains("does not answer") && lines.first().contains(String.valueOf(port)),
                    lines.toString());
        }
    }

    @Test
    void aZooKeeperThatAnswersAgainIsSaidOnceAndGuardsTheNextGroups() throws Exception {
        kafka.createTopic(topic, 1);
        int port = freePort();
        try (ZooKeeperLines lines = new ZooKeeperLines(port);
             RunningPixy pixy = kafkaModeWithZooKeeper("127.0.0.1:" + port)) {
            assertEquals(408, pixy.get(messages()).statusCode(), "served while ZooKeeper is gone");
            try (TestingServer back = TestZooKeeper.running(port, -1);
                 CuratorFramework other = CuratorFrameworkFactory.newClient(back.getConnectString(),
                         new RetryOneTime(100))) {
                other.start();
                String later = group + "-later";
                other.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
                        .forPath("/kp/consumers/" + later + "/ids/pixy_original_2", "{}".getBytes(StandardCharsets.UTF_8));
                // a group made a member of before that is not checked again: ask for the next one only after
                TestKafka.Waits.until(Duration.ofSeconds(90), "ZooKeeper said to answer again",
                        () -> lines.toString().contains("answers again"));
                assertEquals(503, pixy.get("/topics/" + topic + "/messages?group=" + later).statusCode());
                assertEquals(2, lines.size(), "one line when it went, one when it came back: " + lines);
            }
        }
    }

    /** Log lines of WARNING or above about the ZooKeeper at {@code port}, and the guard's INFO lines, while open. */
    private static final class ZooKeeperLines extends Handler implements AutoCloseable {
        private final String port;
        private final List<String> lines = new CopyOnWriteArrayList<>();

        ZooKeeperLines(int port) {
            this.port = String.valueOf(port);
            Logger.getLogger("").addHandler(this);
        }

        @Override
        public void publish(LogRecord r) {
            String text = new SimpleFormatter().formatMessage(r) + (r.getThrown() == null ? "" : " " + r.getThrown());
            boolean guard = r.getLoggerName() != null && r.getLoggerName().endsWith("MixedMembershipGuard");
            if (text.contains(port) && (r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue() || guard)
                || guard && text.contains("answers again")) {
                lines.add(r.getLevel() + " " + r.getLoggerName() + ": " + text);
            }
        }

        int size() {
            return lines.size();
        }

        String first() {
            return lines.getFirst();
        }

        @Override
        public String toString() {
            return String.join("\n", lines);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            Logger.getLogger("").removeHandler(this);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
