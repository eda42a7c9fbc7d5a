package io.kafkapixy.server;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

import io.kafkapixy.config.AuthConfig;
import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.Scrape;
import io.kafkapixy.testing.StreamConsumer;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.kafkapixy.testing.JsonBodies.error;
import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code /inflight}: what the instance holds, read while real clients consume from a real broker; the committed
 * offsets it reports are checked against Kafka's own with an Admin client.
 */
class InFlightTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final TestKafka kafka = TestKafka.get();
    private final String topic = TestKafka.uniqueTopic("inflight");
    private final String group = TestKafka.uniqueTopic("group");

    @Test
    void aMessageOutWithoutAckShowsWithItsAgeUntilItsAckTakesItAway() {
        kafka.createTopic(topic, 2);
        try (RunningPixy pixy = start(RunningPixy.config(kafka.bootstrap(), "kp_" + group,
                ConsumerSettingsBuilder.fast().ackTimeout(Duration.ofSeconds(60))))) {
            joinAndWaitForHead(pixy);
            kafka.produce(topic, 0, "k", "first");
            JsonObject taken = object(pixy.get(messages() + "&noAck").body());
            long offset = taken.getJsonNumber("offset").longValue();

            JsonObject p = partition(pixy, 0);
            assertTrue(p.getBoolean("owned"));
            assertEquals(1, p.getInt("unacked"));
            assertEquals(offset, p.getJsonNumber("oldest_offset").longValue());
            assertEquals(0, p.getInt("redeliveries"));
            assertEquals(offset + 1, p.getJsonNumber("next_offset").longValue());
            assertFalse(p.getBoolean("paused"));
            JsonObject m = p.getJsonArray("messages").getJsonObject(0);
            assertEquals(offset, m.getJsonNumber("offset").longValue());
            assertEquals(1, m.getInt("attempt"));
            assertEquals("out", m.getString("where"));
            assertTrue(m.getJsonNumber("due_in_ms").longValue() > 50_000, m.toString());
            assertFalse(m.containsKey("key"), "keys and values are not shown by default");
            assertFalse(m.containsKey("value"));
            assertTrue(partition(pixy, 1).getBoolean("owned"), "the only member owns both partitions");
            // what it says is committed is what Kafka has: the offset of the unacked message, not past it
            TestKafka.Waits.until(WAIT, "the committed offset reported as Kafka has it", () ->
                    kafka.committed(group, topic).get(0).offset() == partition(pixy, 0).getJsonNumber(
                            "committed_offset").longValue());
            assertEquals(offset, kafka.committed(group, topic).get(0).offset());

            long firstAge = p.getJsonNumber("oldest_age_ms").longValue();
            TestKafka.Waits.until(WAIT, "the age grows",
                    () -> partition(pixy, 0).getJsonNumber("oldest_age_ms").longValue() > firstAge + 200);
            TestKafka.Waits.until(WAIT, "the oldest-unacked gauge follows", () -> oldestSeconds(pixy) > 0);

            assertEquals(200, pixy.post("/topics/" + topic + "/acks?group=" + group + "&partition=0&offset=" + offset,
                    "text/plain", "").statusCode());
            JsonObject after = partition(pixy, 0);
            assertEquals(0, after.getInt("unacked"));
            assertEquals(0, after.getJsonArray("messages").size());
            assertEquals(-1, after.getJsonNumber("oldest_offset").longValue());
            TestKafka.Waits.until(WAIT, "the ack committed, and reported so", () ->
                    kafka.committed(group, topic).get(0).offset() == offset + 1
                    && partition(pixy, 0).getJsonNumber("committed_offset").longValue() == offset + 1);
            TestKafka.Waits.until(WAIT, "the gauge back at 0", () -> oldestSeconds(pixy) == 0);
        }
    }

    @Test
    void aSecondGroupAppearsWhenItJoinsAndEachCanBeAskedForAlone() {
        kafka.createTopic(topic, 1);
        String other = group + "-b";
        // neither group may expire while the other joins, however slow the machine
        try (RunningPixy pixy = start(RunningPixy.config(kafka.bootstrap(), "kp_" + group,
                ConsumerSettingsBuilder.fast().subscriptionTimeout(Duration.ofMinutes(2))))) {
            joinAndWaitForHead(pixy);
            assertEquals(List.of(group), groupNames(object(pixy.get("/inflight").body())));

            pixy.get("/topics/" + topic + "/messages?group=" + other);
            TestKafka.Waits.until(WAIT, "the second group listed",
                    () -> groupNames(object(pixy.get("/inflight").body())).equals(List.of(group, other)));
            JsonObject one = object(pixy.get("/inflight/default/" + other).body());
            assertEquals(List.of(other), groupNames(one));
            JsonObject g = one.getJsonArray("clusters").getJsonObject(0).getJsonArray("groups").getJsonObject(0);
            assertEquals("kafka", g.getString("mode"));
            assertEquals("serving", g.getString("state"));
        }
    }

    @Test
    void unknownClustersAndGroupsAre404AndABadLimit400LikeTheRestOfTheApi() {
        try (RunningPixy pixy = start(RunningPixy.config(kafka.bootstrap()))) {
            HttpResponse<String> cluster = pixy.get("/inflight/nope");
            assertEquals(404, cluster.statusCode());
            assertEquals("application/json", cluster.headers().firstValue("Content-Type").orElse(""));
            assertEquals("proxy `nope` does not exist", error(cluster.body()));
            HttpResponse<String> g = pixy.get("/inflight/default/" + group);
            assertEquals(404, g.statusCode());
            assertEquals("group `" + group + "` has no member on this instance", error(g.body()));
            HttpResponse<String> limit = pixy.get("/inflight?limit=0");
            assertEquals(400, limit.statusCode());
            assertEquals("limit must be a whole number of 1 or more, got \"0\"", error(limit.body()));
            assertEquals(405, pixy.post("/inflight", "text/plain", "").statusCode());
            HttpResponse<String> page = pixy.get("/inflight.html");
            assertEquals(200, page.statusCode());
            assertTrue(page.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
            assertTrue(page.body().contains("<title>Kafka-Pixy: in flight</title>"));
        }
    }

    @Test
    void rowsStopAtTheLimitAndTheAnswerSaysItWasCut() {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start(RunningPixy.config(kafka.bootstrap(), "kp_" + group,
                ConsumerSettingsBuilder.fast().ackTimeout(Duration.ofSeconds(60))))) {
            joinAndWaitForHead(pixy);
            for (int i = 0; i < 5; i++) {
                kafka.produce(topic, 0, null, "m" + i);
            }
            for (int i = 0; i < 5; i++) {
                assertEquals(200, pixy.get(messages() + "&noAck").statusCode());
            }
            JsonObject whole = object(pixy.get("/inflight").body());
            assertFalse(whole.getBoolean("truncated"));
            assertEquals(5, onlyPartition(whole).getJsonArray("messages").size());

            JsonObject cut = object(pixy.get("/inflight?limit=3").body());
            assertTrue(cut.getBoolean("truncated"));
            JsonObject p = onlyPartition(cut);
            // one row for the partition, two for its messages; the counts still cover all five
            assertEquals(2, p.getJsonArray("messages").size());
            assertEquals(5, p.getInt("unacked"));
        }
    }

    @Test
    void keysAndValuesAreShownOnlyWhenTheConfigSaysSo() {
        kafka.createTopic(topic, 1);
        PixyConfig config = RunningPixy.config(kafka.bootstrap(), "kp_" + group, ConsumerSettingsBuilder.fast()
                .ackTimeout(Duration.ofSeconds(60))).with(PixyConfig.INFLIGHT_MESSAGES, true);
        try (RunningPixy pixy = start(config)) {
            joinAndWaitForHead(pixy);
            kafka.produce(topic, 0, "the-key", "the-value");
            assertEquals(200, pixy.get(messages() + "&noAck").statusCode());
            JsonObject all = object(pixy.get("/inflight").body());
            assertTrue(all.getBoolean("messages_shown"));
            JsonObject m = onlyPartition(all).getJsonArray("messages").getJsonObject(0);
            assertEquals(b64("the-key"), m.getString("key"));
            assertEquals(b64("the-value"), m.getString("value"));
        }
    }

    @Test
    void aStreamShowsItsClientsAddressCreditsAndWhatItHolds() throws Exception {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start(RunningPixy.config(kafka.bootstrap(), "kp_" + group,
                ConsumerSettingsBuilder.fast().ackTimeout(Duration.ofSeconds(60))))) {
            joinAndWaitForHead(pixy);
            StreamConsumer stream = StreamConsumer.open(pixy.channel(), group, List.of(topic), 5);
            try {
                kafka.produce(topic, 0, null, "to the stream");
                stream.take(WAIT);
                TestKafka.Waits.until(WAIT, "the stream listed with one message held", () -> {
                    var streams = object(pixy.get("/inflight/default/" + group).body()).getJsonArray("clusters")
                            .getJsonObject(0).getJsonArray("groups").getJsonObject(0).getJsonArray("streams");
                    if (streams.size() != 1) {
                        return false;
                    }
                    JsonObject s = streams.getJsonObject(0);
                    return s.getString("peer").startsWith("127.0.0.1:") && s.getInt("held") == 1
                           && s.getInt("credits") == 4 && s.getJsonArray("topics").getString(0).equals(topic);
                });
            } finally {
                stream.cancel();
            }
        }
    }

    @Test
    void withBearerTokensTheApiNeedsOneAndThePageDoesNot(@TempDir Path dir) throws Exception {
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, "s3cret\n");
        try (RunningPixy pixy = start(RunningPixy.config(kafka.bootstrap())
                .withAuth(AuthConfig.NONE.with(AuthConfig.BEARER_TOKENS_FILE, tokens.toString())))) {
            assertEquals(401, pixy.get("/inflight").statusCode());
            assertEquals(200, pixy.get("/inflight.html").statusCode());
            assertEquals(200, pixy.send(java.net.http.HttpRequest.newBuilder(pixy.uri("/inflight"))
                    .header("Authorization", "Bearer s3cret").GET()).statusCode());
        }
    }

    private static RunningPixy start(PixyConfig config) {
        return RunningPixy.start(config);
    }

    private String messages() {
        return "/topics/" + topic + "/messages?group=" + group;
    }

    /** The group's first request subscribes it; a new group starts at the head, committed at once. */
    private void joinAndWaitForHead(RunningPixy pixy) {
        pixy.get(messages());
        TestKafka.Waits.until(WAIT, "the group joined and its start committed",
                () -> !kafka.committed(group, topic).isEmpty());
    }

    private JsonObject partition(RunningPixy pixy, int partition) {
        JsonObject body = object(pixy.get("/inflight/default/" + group).body());
        var partitions = body.getJsonArray("clusters").getJsonObject(0).getJsonArray("groups").getJsonObject(0)
                .getJsonArray("topics").getJsonObject(0).getJsonArray("partitions");
        for (int i = 0; i < partitions.size(); i++) {
            if (partitions.getJsonObject(i).getInt("partition") == partition) {
                return partitions.getJsonObject(i);
            }
        }
        throw new AssertionError("no partition " + partition + " in " + body);
    }

    private static JsonObject onlyPartition(JsonObject body) {
        return body.getJsonArray("clusters").getJsonObject(0).getJsonArray("groups").getJsonObject(0)
                .getJsonArray("topics").getJsonObject(0).getJsonArray("partitions").getJsonObject(0);
    }

    private static List<String> groupNames(JsonObject body) {
        return body.getJsonArray("clusters").getJsonObject(0).getJsonArray("groups").stream()
                .map(g -> g.asJsonObject().getString("group")).toList();
    }

    private double oldestSeconds(RunningPixy pixy) {
        Scrape s = Scrape.parse(pixy.get("/metrics").body());
        return s.value("kafkapixy_consume_oldest_unacked_seconds", "cluster", "default", "group", group, "topic",
                topic, "mode", "kafka");
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }
}
