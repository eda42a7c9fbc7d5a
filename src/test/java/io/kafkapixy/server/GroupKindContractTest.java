package io.kafkapixy.server;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonObject;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a client sees of waiting, acking and redelivery is the same in every kind of group: each rule here runs against
 * a classic group (Kafka's membership) and a share group on the real broker, through REST.
 */
class GroupKindContractTest {

    /** The kinds of group a cluster can serve. */
    enum Kind {
        CLASSIC, SHARE;

        ConsumerSettingsBuilder settings() {
            return this == SHARE ? ConsumerSettingsBuilder.fast().shareMembership() : ConsumerSettingsBuilder.fast();
        }

        /** {@code group} reads {@code topic} from its oldest message (a new group of either kind: the newest). */
        void readFromTheOldest(TestKafka kafka, String group, String topic) throws Exception {
            if (this == CLASSIC) {
                int partitions = kafka.admin().describeTopics(List.of(topic)).allTopicNames()
                        .get(30, TimeUnit.SECONDS).get(topic).partitions().size();
                for (int p = 0; p < partitions; p++) {
                    kafka.commit(group, topic, p, 0, "");
                }
                return;
            }
            kafka.admin().incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group),
                    List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
                            AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        }

        /**
         * As the broker reads it (a plain Admin client): the offset below which every message of {@code topic}'s
         * partition 0 is settled (committed past, or done in the share group); -1 before the group has any.
         */
        long settledUpTo(TestKafka kafka, String group, String topic) {
            if (this == CLASSIC) {
                var committed = kafka.committed(group, topic).get(0);
                return committed == null ? -1 : committed.offset();
            }
            try {
                var info = kafka.admin().listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()))
                        .partitionsToOffsetInfo(group).get(30, TimeUnit.SECONDS).get(new TopicPartition(topic, 0));
                if (info == null) {
                    return -1;
                }
                // an archived record at the start is done (no lag) before the start offset moves past it
                return info.lag().orElse(-1L) == 0 ? kafka.endOffsets(topic, 1).get(0) : info.startOffset();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
    }

    private final TestKafka kafka = TestKafka.get();
    private final String topic = TestKafka.uniqueTopic("contract");
    private final String group = TestKafka.uniqueTopic("cgroup");

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aRequestWithNothingToReadIsAnsweredLongPollingTimeoutAtItsDeadline(Kind kind) throws Exception {
        kafka.createTopic(topic, 1);
        readFromTheOldest(kind);
        try (RunningPixy pixy = start(kind, kind.settings().longPollingTimeout(Duration.ofSeconds(2)))) {
            long sent = System.nanoTime();
            HttpResponse<String> rs = pixy.get(messages(""));
            assertEquals(408, rs.statusCode(), rs.body());
            assertEquals("long polling timeout", object(rs.body()).getString("error"));
            assertTrue(System.nanoTime() - sent >= TimeUnit.SECONDS.toNanos(2), "not before the deadline");
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void requestsBeyondTheChannelBufferAreRefusedTooManyRequests(Kind kind) throws Exception {
        kafka.createTopic(topic, 1);
        readFromTheOldest(kind);
        try (RunningPixy pixy = start(kind, kind.settings().channelBufferSize(1)
                .longPollingTimeout(Duration.ofSeconds(20)))) {
            // one request held and channel_buffer_size more queued, as in the original
            List<CompletableFuture<HttpResponse<String>>> parked = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                parked.add(CompletableFuture.supplyAsync(() -> pixy.get(messages(""))));
                TestKafka.Waits.until(Duration.ofSeconds(30), "parked", () -> parkedRequests(pixy) == parked.size());
            }
            HttpResponse<String> refused = pixy.get(messages(""));
            assertEquals(429, refused.statusCode(), refused.body());
            assertTrue(object(refused.body()).getString("error").startsWith("Too many requests."), refused.body());

            kafka.produce(topic, 0, null, "m0");
            kafka.produce(topic, 0, null, "m1");
            for (CompletableFuture<HttpResponse<String>> p : parked) {
                assertEquals(200, p.get(60, TimeUnit.SECONDS).statusCode(), "the parked ones are served");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anAckIsTakenAndAnAckForAPartitionNeverServedHereNamesIt(Kind kind) throws Exception {
        kafka.createTopic(topic, 2);
        readFromTheOldest(kind);
        kafka.produce(topic, 0, null, "m0");
        try (RunningPixy pixy = start(kind, kind.settings().longPollingTimeout(Duration.ofSeconds(5)))) {
            JsonObject m = take(pixy, "&noAck");
            assertEquals(0, m.getInt("partition"));
            HttpResponse<String> taken = ack(pixy, 0, m.getJsonNumber("offset").longValue());
            assertEquals(200, taken.statusCode(), taken.body());
            assertTrue(object(taken.body()).isEmpty(), taken.body());

            HttpResponse<String> other = ack(pixy, 1, 0);
            assertEquals(500, other.statusCode());
            assertEquals("acks channel missing for {" + group + " " + topic + " 1}",
                    object(other.body()).getString("error"));
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anUnackedMessageIsOfferedAgainNoSoonerThanAckTimeoutAfterItWasHandedOut(Kind kind) throws Exception {
        kafka.createTopic(topic, 1);
        readFromTheOldest(kind);
        kafka.produce(topic, 0, null, "m0");
        Duration ackTimeout = Duration.ofSeconds(3);
        try (RunningPixy pixy = start(kind, kind.settings().ackTimeout(ackTimeout)
                .longPollingTimeout(Duration.ofSeconds(5)))) {
            // no later than the hand-out: the answer reaches this client some time after the proxy handed it out
            long handedOut = System.nanoTime();
            JsonObject first = take(pixy, "&noAck");

            JsonObject again = take(pixy, "");
            assertTrue(System.nanoTime() - handedOut >= ackTimeout.toNanos(), "not before ack_timeout");
            assertEquals(first.getJsonNumber("offset"), again.getJsonNumber("offset"));
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void atShutdownAParkedRequestIsAnsweredServiceIsShuttingDown(Kind kind) throws Exception {
        kafka.createTopic(topic, 1);
        readFromTheOldest(kind);
        RunningPixy pixy = start(kind, kind.settings().longPollingTimeout(Duration.ofSeconds(30)));
        CompletableFuture<HttpResponse<String>> parked;
        try {
            parked = CompletableFuture.supplyAsync(() -> pixy.get(messages("")));
            TestKafka.Waits.until(Duration.ofSeconds(30), "parked", () -> parkedRequests(pixy) == 1);
        } finally {
            CompletableFuture.runAsync(pixy::close);
        }
        HttpResponse<String> rs = parked.get(60, TimeUnit.SECONDS);
        assertEquals(503, rs.statusCode(), rs.body());
        assertEquals("service is shutting down", object(rs.body()).getString("error"));
    }

    private RunningPixy start(Kind kind, ConsumerSettingsBuilder settings) {
        return RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "contract-" + kind.name().toLowerCase(),
                settings));
    }

    private void readFromTheOldest(Kind kind) throws Exception {
        kind.readFromTheOldest(kafka, group, topic);
    }

    private int parkedRequests(RunningPixy pixy) {
        return pixy.app().proxies().get("default").consumers().parkedRequests();
    }

    private HttpResponse<String> ack(RunningPixy pixy, int partition, long offset) {
        return pixy.post("/topics/" + topic + "/acks?group=" + group + "&partition=" + partition + "&offset="
                + offset, "text/plain", "");
    }

    private JsonObject take(RunningPixy pixy, String flags) {
        return pixy.takeMessage(messages(flags));
    }

    private String messages(String flags) {
        return "/topics/" + topic + "/messages?group=" + group + flags;
    }
}
