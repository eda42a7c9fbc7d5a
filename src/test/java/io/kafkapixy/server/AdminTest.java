package io.kafkapixy.server;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.kafkapixy.testing.Background;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import mailgun.kafkapixy.GetOffsetsRq;
import mailgun.kafkapixy.GetOffsetsRs;
import mailgun.kafkapixy.GetTopicMetadataRq;
import mailgun.kafkapixy.GetTopicMetadataRs;
import mailgun.kafkapixy.ListConsumersRq;
import mailgun.kafkapixy.ListConsumersRs;
import mailgun.kafkapixy.ListTopicRq;
import mailgun.kafkapixy.ListTopicRs;
import mailgun.kafkapixy.PartitionOffset;
import mailgun.kafkapixy.SetOffsetsRq;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.error;
import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Offsets, consumers and topics over REST and gRPC, against a real broker, with a plain admin client as the oracle.
 */
class AdminTest {

    private static TestKafka kafka;
    private static RunningPixy pixy;

    private final String topic = TestKafka.uniqueTopic("admin");
    private final String group = TestKafka.uniqueTopic("agroup");

    @BeforeAll
    static void start() {
        kafka = TestKafka.get();
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_admin", ConsumerSettingsBuilder.fast()));
    }

    @AfterAll
    static void stop() {
        pixy.close();
    }

    @Test
    void offsetsOfAGroupWithoutCommitsAreMinusOneWithNoLag() {
        kafka.createTopic(topic, 2);
        kafka.produce(topic, 0, null, "a");
        kafka.produce(topic, 0, null, "b");

        JsonArray offsets = getOffsets(group);

        assertEquals(2, offsets.size());
        JsonObject p0 = offsets.getJsonObject(0);
        assertEquals(0, p0.getInt("partition"));
        assertEquals(0, p0.getJsonNumber("begin").longValue());
        assertEquals(2, p0.getJsonNumber("end").longValue());
        assertEquals(2, p0.getJsonNumber("count").longValue());
        assertEquals(-1, p0.getJsonNumber("offset").longValue());
        assertEquals(0, p0.getJsonNumber("lag").longValue());
        assertFalse(p0.containsKey("metadata"));
        assertFalse(p0.containsKey("sparse_acks"));
        assertEquals(1, offsets.getJsonObject(1).getInt("partition"));
    }

    @Test
    void setOffsetsIsAPartialUpdateWithMetadataStoredVerbatimAndLagComputed() {
        kafka.createTopic(topic, 3);
        for (int i = 0; i < 5; i++) {
            kafka.produce(topic, 0, null, "m" + i);
            kafka.produce(topic, 1, null, "m" + i);
        }
        kafka.commit(group, topic, 2, 0, "keep");

        HttpResponse<String> set = post("/topics/" + topic + "/offsets?group=" + group,
                "[{\"partition\": 0, \"offset\": 1, \"metadata\": \"BgB\"}, {\"Partition\": 1, \"offset\": 7}]");

        assertEquals(200, set.statusCode(), set.body());
        assertEquals("{}", set.body().replaceAll("\\s", ""));
        var committed = kafka.committed(group, topic);
        assertEquals(1, committed.get(0).offset());
        assertEquals("BgB", committed.get(0).metadata());
        assertEquals(7, committed.get(1).offset());
        assertEquals("", committed.get(1).metadata());
        assertEquals("keep", committed.get(2).metadata());
        JsonArray offsets = getOffsets(group);
        assertEquals("BgB", offsets.getJsonObject(0).getString("metadata"));
        assertEquals("1-33", offsets.getJsonObject(0).getString("sparse_acks"));
        assertEquals(4, offsets.getJsonObject(0).getJsonNumber("lag").longValue());
        assertEquals(-2, offsets.getJsonObject(1).getJsonNumber("lag").longValue(), "offset beyond the end");
    }

    @Test
    void negativeOffsetsAreStoredAsGivenAndTheirLagFollowsTheOriginal() {
        kafka.createTopic(topic, 3);
        for (int i = 0; i < 4; i++) {
            kafka.produce(topic, 0, null, "m" + i);
            kafka.produce(topic, 1, null, "m" + i);
        }

        HttpResponse<String> set = post("/topics/" + topic + "/offsets?group=" + group,
                "[{\"partition\": 0, \"offset\": -1}, {\"partition\": 1, \"offset\": -2, \"metadata\": \"x\"}]");

        assertEquals(200, set.statusCode(), set.body());
        JsonArray offsets = getOffsets(group);
        assertEquals(-1, offsets.getJsonObject(0).getJsonNumber("offset").longValue());
        assertEquals(0, offsets.getJsonObject(0).getJsonNumber("lag").longValue());
        assertEquals(-2, offsets.getJsonObject(1).getJsonNumber("offset").longValue());
        assertEquals(4, offsets.getJsonObject(1).getJsonNumber("lag").longValue());
        assertEquals("x", offsets.getJsonObject(1).getString("metadata"));
        GetOffsetsRs grpc = pixy.grpc().getOffsets(GetOffsetsRq.newBuilder().setTopic(topic).setGroup(group).build());
        assertEquals(-2, grpc.getOffsets(1).getOffset());
    }

    @Test
    void aGroupWhoseOffsetIsMinusTwoStartsAtTheOldestMessage() {
        kafka.createTopic(topic, 1);
        for (int i = 0; i < 3; i++) {
            kafka.produce(topic, 0, null, "m" + i);
        }
        assertEquals(200, post("/topics/" + topic + "/offsets?group=" + group,
                "[{\"partition\": 0, \"offset\": -2}]").statusCode());

        JsonObject first = object(pixy.get("/topics/" + topic + "/messages?group=" + group).body());

        assertEquals(0, first.getJsonNumber("offset").longValue());
        TestKafka.Waits.until(Duration.ofSeconds(30), "the oldest offset committed, then the ack",
                () -> kafka.committed(group, topic).get(0) != null && kafka.committed(group, topic).get(0).offset() == 1);
    }

    @Test
    void offsetsSetWithSparseAcksAreSkippedByTheNextConsume() {
        kafka.createTopic(topic, 1);
        for (int i = 0; i < 40; i++) {
            kafka.produce(topic, 0, null, "m" + i);
        }
        assertEquals(200, post("/topics/" + topic + "/offsets?group=" + group,
                "[{\"partition\": 0, \"offset\": 3, \"metadata\": \"BgB\"}]").statusCode());

        List<Long> offsets = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            offsets.add(object(pixy.get("/topics/" + topic + "/messages?group=" + group).body())
                    .getJsonNumber("offset").longValue());
        }

        assertEquals(List.of(3L, 36L), offsets);
    }

    @Test
    void setOffsetsOfAnActiveGroupFailsSayingSoInsteadOfBeingOverwritten() {
        kafka.createTopic(topic, 1);
        assertEquals(408, pixy.get("/topics/" + topic + "/messages?group=" + group).statusCode());
        long before = kafka.committed(group, topic).get(0).offset();

        HttpResponse<String> rs = post("/topics/" + topic + "/offsets?group=" + group,
                "[{\"partition\": 0, \"offset\": 100}]");
        StatusRuntimeException grpc = assertThrows(StatusRuntimeException.class, () -> pixy.grpc().setOffsets(
                SetOffsetsRq.newBuilder().setTopic(topic).setGroup(group)
                        .addOffsets(PartitionOffset.newBuilder().setPartition(0).setOffset(100)).build()));

        assertEquals(409, rs.statusCode());
        assertTrue(error(rs.body()).startsWith("consumer group " + group + " is active"), rs.body());
        assertEquals(Status.Code.FAILED_PRECONDITION, grpc.getStatus().getCode());
        assertEquals(before, kafka.committed(group, topic).get(0).offset());
    }

    @Test
    void setOffsetsRefusesUnknownPartitionsTopicsAndBadJson() {
        kafka.createTopic(topic, 1);

        assertEquals("Unknown topic", error(post("/topics/" + topic + "/offsets?group=" + group,
                "[{\"partition\": 5, \"offset\": 1}]").body()));
        HttpResponse<String> unknownTopic = post("/topics/no-such-topic-x/offsets?group=" + group,
                "[{\"partition\": 0, \"offset\": 1}]");
        assertEquals(404, unknownTopic.statusCode());
        assertEquals("Unknown topic", error(unknownTopic.body()));
        assertEquals("Failed to parse the request: err=(invalid character 'g' looking for beginning of value)",
                error(post("/topics/" + topic + "/offsets?group=" + group, "garbage").body()));
        HttpResponse<String> form = pixy.post("/topics/" + topic + "/offsets?group=" + group,
                "application/x-www-form-urlencoded", "[{\"partition\": 0, \"offset\": 1}]");
        assertEquals(400, form.statusCode());
        assertEquals("Failed to parse the request: err=(unexpected end of JSON input)", error(form.body()));
        assertEquals("Failed to parse the request: err=(json: cannot unmarshal string into Go struct field "
                     + "partitionInfo.partition of type int32)",
                error(post("/topics/" + topic + "/offsets?group=" + group, "[{\"partition\": \"0\"}]").body()));
        assertEquals("Failed to parse the request: err=(invalid character 'j' after top-level value)",
                error(post("/topics/" + topic + "/offsets?group=" + group,
                        "[{\"partition\": 0, \"offset\": 1}] junk").body()));
        assertEquals("Failed to parse the request: err=(json: cannot unmarshal number 1.0 into Go struct field "
                     + "partitionInfo.offset of type int64)",
                error(post("/topics/" + topic + "/offsets?group=" + group,
                        "[{\"partition\": 0, \"offset\": 1.0}]").body()));
        HttpResponse<String> unknownPartition = post("/topics/" + topic + "/offsets?group=" + group,
                "[{\"partition\": 5, \"offset\": 1}]");
        assertEquals(404, unknownPartition.statusCode());
        assertTrue(kafka.committed(group, topic).isEmpty());
    }

    @Test
    void setOffsetsWithMetadataOverTheBrokersLimitFailsWithTheOriginalsTextOnBothApis() {
        kafka.createTopic(topic, 1);
        String tooLong = "x".repeat(5000); // the broker's offset.metadata.max.bytes is 4096 by default
        String text = "kafka server: Specified a string larger than the configured maximum for offset metadata.";

        HttpResponse<String> rest = post("/topics/" + topic + "/offsets?group=" + group,
                "[{\"partition\": 0, \"offset\": 0, \"metadata\": \"" + tooLong + "\"}]");
        StatusRuntimeException grpc = assertThrows(StatusRuntimeException.class, () -> pixy.grpc().setOffsets(
                SetOffsetsRq.newBuilder().setTopic(topic).setGroup(group).addOffsets(PartitionOffset.newBuilder()
                        .setPartition(0).setOffset(0).setMetadata(tooLong)).build()));

        assertEquals(500, rest.statusCode());
        assertEquals(text, error(rest.body()));
        assertEquals(text, grpc.getStatus().getDescription());
        assertTrue(kafka.committed(group, topic).isEmpty());
    }

    @Test
    void aSetOffsetsBodyNestedTooDeepIsABadRequestLikeAnyUnparseableOne() {
        kafka.createTopic(topic, 1);

        HttpResponse<String> rs = post("/topics/" + topic + "/offsets?group=" + group, "[".repeat(100_000));

        assertEquals(400, rs.statusCode(), rs.body());
        assertTrue(error(rs.body()).startsWith("Failed to parse the request: err=("), rs.body());
        assertTrue(kafka.committed(group, topic).isEmpty());
    }

    @Test
    void getOffsetsOfAnUnknownTopicIsNotFound() {
        HttpResponse<String> rs = pixy.get("/topics/no-such-topic-y/offsets?group=" + group);
        StatusRuntimeException grpc = assertThrows(StatusRuntimeException.class, () -> pixy.grpc().getOffsets(
                GetOffsetsRq.newBuilder().setTopic("no-such-topic-y").setGroup(group).build()));

        assertEquals(404, rs.statusCode());
        assertEquals("Unknown topic", error(rs.body()));
        assertEquals(Status.Code.NOT_FOUND, grpc.getStatus().getCode());
        assertEquals("failed to get topic partitions: kafka server: Request was for a topic or partition that "
                     + "does not exist on this broker.", grpc.getStatus().getDescription());
    }

    @Test
    void grpcOffsetsCarryEmptyMetadataAsEmptyStrings() {
        kafka.createTopic(topic, 1);
        kafka.produce(topic, 0, null, "a");
        kafka.commit(group, topic, 0, 1, "");

        GetOffsetsRs rs = pixy.grpc().getOffsets(GetOffsetsRq.newBuilder().setTopic(topic).setGroup(group).build());

        PartitionOffset p = rs.getOffsets(0);
        assertEquals(1, p.getEnd());
        assertEquals(1, p.getOffset());
        assertEquals(0, p.getLag());
        assertEquals("", p.getMetadata());
        assertEquals("", p.getSparseAcks());
    }

    @Test
    void consumersOfATopicAreListedPerGroupAndMember() {
        kafka.createTopic(topic, 4);
        try (RunningPixy other = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_other",
                ConsumerSettingsBuilder.fast()))) {
            TestKafka.Waits.until(Duration.ofSeconds(60), "two members", () -> {
                CompletableFuture<?> a = CompletableFuture.runAsync(
                        () -> pixy.get("/topics/" + topic + "/messages?group=" + group + "&noAck"), Background.THREADS);
                other.get("/topics/" + topic + "/messages?group=" + group + "&noAck");
                a.join();
                return kafka.assignment(group, topic).size() == 2
                       && kafka.assignment(group, topic).values().stream().noneMatch(java.util.Set::isEmpty);
            });

            JsonObject all = object(pixy.get("/topics/" + topic + "/consumers").body());
            JsonObject one = object(pixy.get("/topics/" + topic + "/consumers?group=" + group).body());
            ListConsumersRs grpc = pixy.grpc().listConsumers(ListConsumersRq.newBuilder().setTopic(topic)
                    .setGroup(group).build());

            JsonObject members = one.getJsonObject(group);
            assertEquals(java.util.Set.of("kp_admin", "kp_other"), members.keySet());
            List<Integer> partitions = new ArrayList<>();
            members.values().forEach(v -> v.asJsonArray().forEach(p -> partitions.add(((jakarta.json.JsonNumber) p)
                    .intValue())));
            assertEquals(4, partitions.size());
            assertEquals(java.util.Set.of(0, 1, 2, 3), new java.util.HashSet<>(partitions));
            members.values().forEach(v -> {
                List<Integer> list = v.asJsonArray().stream().map(p -> ((jakarta.json.JsonNumber) p).intValue())
                        .toList();
                assertEquals(list.stream().sorted().toList(), list, "partitions are sorted");
            });
            assertEquals(members, all.getJsonObject(group));
            assertEquals(2, grpc.getGroupsOrThrow(group).getConsumersCount());
        }
    }

    @Test
    void listConsumersWithAGroupNamesWhatIsMissing() {
        kafka.createTopic(topic, 1);
        assertEquals(408, pixy.get("/topics/" + topic + "/messages?group=" + group).statusCode());

        HttpResponse<String> unknownGroup = pixy.get("/topics/" + topic + "/consumers?group=no-such-group-z");
        HttpResponse<String> otherTopic = pixy.get("/topics/__consumer_offsets/consumers?group=" + group);
        StatusRuntimeException grpc = assertThrows(StatusRuntimeException.class, () -> pixy.grpc().listConsumers(
                ListConsumersRq.newBuilder().setTopic(topic).setGroup("no-such-group-z").build()));

        assertEquals(400, unknownGroup.statusCode());
        assertEquals("unknown consumer group no-such-group-z", error(unknownGroup.body()));
        assertEquals(400, otherTopic.statusCode());
        assertEquals("topic __consumer_offsets is not consumed by " + group, error(otherTopic.body()));
        assertEquals(Status.Code.NOT_FOUND, grpc.getStatus().getCode());
        assertEquals("unknown consumer group no-such-group-z", grpc.getStatus().getDescription());
    }

    @Test
    void listConsumersTakesAtMostOneGroupAndAnEmptyOneListsThemAll() {
        kafka.createTopic(topic, 1);
        assertEquals(408, pixy.get("/topics/" + topic + "/messages?group=" + group).statusCode());

        HttpResponse<String> two = pixy.get("/topics/" + topic + "/consumers?group=a&group=b");
        HttpResponse<String> empty = pixy.get("/topics/" + topic + "/consumers?group=");
        ListConsumersRs grpcAll = pixy.grpc().listConsumers(ListConsumersRq.newBuilder().setTopic(topic).build());

        assertEquals(400, two.statusCode());
        assertEquals("one consumer group is expected, but 2 provided", error(two.body()));
        assertEquals(200, empty.statusCode());
        assertTrue(object(empty.body()).containsKey(group), empty.body());
        assertTrue(grpcAll.containsGroups(group));
    }

    @Test
    void grpcSetOffsetsStoresMetadataAndRefusesUnknownTopics() {
        kafka.createTopic(topic, 1);
        kafka.produce(topic, 0, null, "a");

        pixy.grpc().setOffsets(SetOffsetsRq.newBuilder().setTopic(topic).setGroup(group)
                .addOffsets(PartitionOffset.newBuilder().setPartition(0).setOffset(1).setMetadata("BgB")).build());
        StatusRuntimeException unknown = assertThrows(StatusRuntimeException.class, () -> pixy.grpc().setOffsets(
                SetOffsetsRq.newBuilder().setTopic("no-such-topic-v").setGroup(group)
                        .addOffsets(PartitionOffset.newBuilder().setPartition(0).setOffset(1)).build()));

        assertEquals("BgB", kafka.committed(group, topic).get(0).metadata());
        assertEquals(Status.Code.NOT_FOUND, unknown.getStatus().getCode());
        assertEquals("kafka server: Request was for a topic or partition that does not exist on this broker.",
                unknown.getStatus().getDescription());
    }

    @Test
    void adminRoutesTakeAClusterPrefixAndRefuseUnknownClusters() {
        kafka.createTopic(topic, 1);

        assertEquals(200, pixy.get("/clusters/default/topics/" + topic + "/offsets?group=" + group).statusCode());
        assertEquals(200, pixy.get("/clusters/default/topics").statusCode());
        HttpResponse<String> unknown = pixy.get("/clusters/nope/topics");
        assertEquals(400, unknown.statusCode());
        assertEquals("proxy `nope` does not exist", error(unknown.body()));
    }

    @Test
    void topicsAreListedSortedWithPartitionsAndConfigWhenAskedFor() throws Exception {
        kafka.createTopic(topic, 2);
        kafka.admin().incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic),
                (Collection<AlterConfigOp>) List.of(new AlterConfigOp(new ConfigEntry("retention.ms", "12345"),
                        AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);

        JsonArray names = jakarta.json.Json.createReader(new java.io.StringReader(pixy.get("/topics").body()))
                .readArray();
        JsonObject withPartitions = object(pixy.get("/topics?withPartitions").body());
        JsonObject withConfig = object(pixy.get("/topics?withConfig").body());
        JsonObject both = object(pixy.get("/topics?withPartitions=false&withConfig").body());

        List<String> list = names.stream().map(v -> ((jakarta.json.JsonString) v).getString()).toList();
        assertEquals(list.stream().sorted().toList(), list);
        assertTrue(list.contains("__consumer_offsets") && list.contains(topic));
        JsonObject t = withPartitions.getJsonObject(topic);
        assertFalse(t.containsKey("config"));
        JsonObject p1 = t.getJsonArray("partitions").getJsonObject(1);
        assertEquals(1, p1.getInt("partition"));
        assertTrue(p1.getInt("leader") >= 0);
        assertEquals(1, p1.getJsonArray("replicas").size());
        assertEquals(1, p1.getJsonArray("isr").size());
        JsonObject config = withConfig.getJsonObject(topic).getJsonObject("config");
        assertFalse(withConfig.getJsonObject(topic).containsKey("partitions"));
        assertEquals(1, config.getInt("version"));
        assertEquals("12345", config.getJsonObject("config").getString("retention.ms"));
        assertTrue(both.getJsonObject(topic).containsKey("config") && both.getJsonObject(topic)
                .containsKey("partitions"));

        ListTopicRs grpc = pixy.grpc().listTopics(ListTopicRq.newBuilder().setWithPartitions(true).build());
        GetTopicMetadataRs g = grpc.getTopicsOrThrow(topic);
        assertEquals("12345", g.getConfigOrThrow("retention.ms"));
        assertEquals(2, g.getPartitionsCount());
    }

    @Test
    void topicMetadataHasConfigAlwaysAndPartitionsWhenAskedFor() {
        kafka.createTopic(topic, 3);

        JsonObject plain = object(pixy.get("/topics/" + topic).body());
        JsonObject withPartitions = object(pixy.get("/topics/" + topic + "?withPartitions").body());
        HttpResponse<String> unknown = pixy.get("/topics/no-such-topic-w");
        GetTopicMetadataRs grpc = pixy.grpc().getTopicMetadata(GetTopicMetadataRq.newBuilder().setTopic(topic)
                .setWithPartitions(true).build());
        StatusRuntimeException grpcUnknown = assertThrows(StatusRuntimeException.class, () -> pixy.grpc()
                .getTopicMetadata(GetTopicMetadataRq.newBuilder().setTopic("no-such-topic-w").build()));

        assertEquals(1, plain.getJsonObject("config").getInt("version"));
        assertFalse(plain.containsKey("partitions"));
        assertEquals(3, withPartitions.getJsonArray("partitions").size());
        assertEquals(500, unknown.statusCode());
        assertEquals(3, grpc.getPartitionsCount());
        assertEquals(1, grpc.getVersion());
        assertEquals(Status.Code.NOT_FOUND, grpcUnknown.getStatus().getCode());
    }

    private JsonArray getOffsets(String group) {
        HttpResponse<String> rs = pixy.get("/topics/" + topic + "/offsets?group=" + group);
        assertEquals(200, rs.statusCode(), rs.body());
        return jakarta.json.Json.createReader(new java.io.StringReader(rs.body())).readArray();
    }

    private HttpResponse<String> post(String path, String json) {
        return pixy.post(path, "application/json", json);
    }
}
