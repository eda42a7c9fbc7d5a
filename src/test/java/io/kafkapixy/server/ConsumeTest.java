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
import java.util.concurrent.CompletableFuture;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.kafkapixy.testing.Background;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonObject;
import mailgun.kafkapixy.AckRq;
import mailgun.kafkapixy.ConsNAckRq;
import mailgun.kafkapixy.ConsRs;
import mailgun.kafkapixy.ProdRq;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.error;
import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Consume on one instance: long polls, the three ack modes, redelivery, limits.
 * Committed offsets are read back with a plain admin client.
 */
class ConsumeTest {

    private final TestKafka kafka = TestKafka.get();
    private final String topic = TestKafka.uniqueTopic("consume");
    private final String group = TestKafka.uniqueTopic("group");

    @Test
    void aNewGroupStartsAtTheNewestOffsetAndCommitsItAtOnce() {
        kafka.createTopic(topic, 1);
        kafka.produce(topic, 0, null, "before");
        kafka.produce(topic, 0, null, "before");
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast())) {
            HttpResponse<String> first = pixy.get(messages());
            assertEquals(408, first.statusCode());
            assertEquals("long polling timeout", error(first.body()));
            TestKafka.Waits.until(Duration.ofSeconds(30), "the head offset committed",
                    () -> kafka.committed(group, topic).getOrDefault(0, null) != null
                          && kafka.committed(group, topic).get(0).offset() == 2);

            kafka.produce(topic, 0, "k", "after");
            JsonObject m = object(pixy.get(messages()).body());
            assertEquals(2, m.getJsonNumber("offset").longValue());
            assertEquals(b64("after"), m.getString("value"));
            assertEquals(b64("k"), m.getString("key"));
        }
    }

    @Test
    void onABrokerThatDelaysTheFirstRebalanceAMessageProducedAfterTheFirstTimeoutIsDelivered() {
        // Kafka's default group.initial.rebalance.delay.ms (3 s) outlasts the first long poll (2 s): the group has
        // no partitions yet when the client is told to go ahead and produce (the quick start's sequence).
        try (var slow = io.kafkapixy.embedded.EmbeddedKafka.start(Map.of("group.initial.rebalance.delay.ms", "3000"));
             RunningPixy pixy = RunningPixy.start(RunningPixy.config(slow.bootstrapServers(), "kp_slow",
                     ConsumerSettingsBuilder.fast()))) {
            assertEquals(200, pixy.post("/topics/" + topic + "/messages?sync", "text/plain", "old").statusCode());
            assertEquals(408, pixy.get(messages()).statusCode());
            pixy.post("/topics/" + topic + "/messages?sync", "text/plain", "new");

            JsonObject m = object(pixy.get(messages() + "&noAck").body());

            assertEquals(b64("new"), m.getString("value"));
        }
    }

    @Test
    void autoAckDeliversEveryMessageOnceAndCommitsExactly() {
        kafka.createTopic(topic, 4);
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast())) {
            join(pixy);
            Set<String> produced = new HashSet<>();
            for (int i = 0; i < 20; i++) {
                kafka.produce(topic, i % 4, null, "m" + i);
                produced.add("m" + i);
            }
            Set<String> consumed = new HashSet<>();
            for (int i = 0; i < 20; i++) {
                HttpResponse<String> rs = pixy.get(messages());
                assertEquals(200, rs.statusCode(), rs.body());
                JsonObject m = object(rs.body());
                assertTrue(m.isNull("key"));
                assertEquals(0, m.getJsonArray("headers").size());
                assertTrue(consumed.add(new String(Base64.getDecoder().decode(m.getString("value")),
                        StandardCharsets.UTF_8)));
            }
            assertEquals(produced, consumed);
            TestKafka.Waits.until(Duration.ofSeconds(30), "offsets committed at the ends", () -> {
                var c = kafka.committed(group, topic);
                return c.size() == 4 && c.values().stream().allMatch(o -> o.offset() == 5 && o.metadata().isEmpty());
            });
            assertEquals(408, pixy.get(messages()).statusCode());
        }
    }

    @Test
    void aGrpcConsumeWhoseClientIsGoneLeavesTheQueueAndIsHandedNoMessage() throws Exception {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast().longPollingTimeout(Duration.ofSeconds(30)))) {
            var consumers = pixy.app().proxies().get("").consumers();
            var ghost = mailgun.kafkapixy.KafkaPixyGrpc.newFutureStub(pixy.channel())
                    .consumeNAck(ConsNAckRq.newBuilder().setTopic(topic).setGroup(group).setNoAck(true).build());
            TestKafka.Waits.until(Duration.ofSeconds(30), "the request is parked", () -> consumers.parkedRequests() == 1);
            TestKafka.Waits.until(Duration.ofSeconds(60), "the group holds the topic", this::assigned);

            ghost.cancel(true);
            TestKafka.Waits.until(Duration.ofSeconds(10), "the gone request left the queue",
                    () -> consumers.parkedRequests() == 0);
            kafka.produce(topic, 0, null, "for the next client");
            ConsRs rs = pixy.grpc().withDeadlineAfter(30, java.util.concurrent.TimeUnit.SECONDS)
                    .consumeNAck(ConsNAckRq.newBuilder().setTopic(topic).setGroup(group).setNoAck(true).build());

            assertEquals(0, rs.getOffset(), "the message was not handed to the client that left");
        }
    }

    @Test
    void theGrpcConsumeAndAckLoopCommitsExactlyWhatWasAcked() {
        kafka.createTopic(topic, 2);
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast())) {
            join(pixy);
            for (int i = 0; i < 10; i++) {
                pixy.grpc().produce(ProdRq.newBuilder().setTopic(topic).setKeyValue(ByteString.copyFromUtf8("k" + i))
                        .setMessage(ByteString.copyFromUtf8("v" + i)).build());
            }
            ConsNAckRq.Builder rq = ConsNAckRq.newBuilder().setTopic(topic).setGroup(group).setNoAck(true);
            Set<String> values = new HashSet<>();
            ConsRs last = null;
            while (values.size() < 10) {
                ConsRs rs = pixy.grpc().consumeNAck(rq.build());
                assertTrue(values.add(rs.getMessage().toStringUtf8()));
                assertEquals(rs.getMessage().toStringUtf8().substring(1), rs.getKeyValue().toStringUtf8().substring(1));
                rq = ConsNAckRq.newBuilder().setTopic(topic).setGroup(group)
                        .setAckPartition(rs.getPartition()).setAckOffset(rs.getOffset());
                last = rs;
            }
            pixy.grpc().ack(AckRq.newBuilder().setTopic(topic).setGroup(group).setPartition(last.getPartition())
                    .setOffset(last.getOffset()).build());
            Map<Integer, Long> ends = kafka.endOffsets(topic, 2);
            TestKafka.Waits.until(Duration.ofSeconds(30), "acked offsets committed", () -> {
                var c = kafka.committed(group, topic);
                return c.size() == 2 && c.get(0).offset() == ends.get(0) && c.get(1).offset() == ends.get(1);
            });
            StatusRuntimeException timeout = assertThrows(StatusRuntimeException.class,
                    () -> pixy.grpc().consumeNAck(ConsNAckRq.newBuilder().setTopic(topic).setGroup(group)
                            .setAutoAck(true).build()));
            assertEquals(Status.Code.NOT_FOUND, timeout.getStatus().getCode());
            assertEquals("long polling timeout", timeout.getStatus().getDescription());
        }
    }

    @Test
    void anUnackedMessageIsRedeliveredAfterAckTimeoutAndSparseAcksAreCommitted() {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast().ackTimeout(Duration.ofSeconds(2))
                .longPollingTimeout(Duration.ofSeconds(5)))) {
            join(pixy);
            for (int i = 0; i < 3; i++) {
                kafka.produce(topic, 0, null, "m" + i);
            }
            List<Long> offsets = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                offsets.add(object(pixy.get(messages() + "&noAck").body()).getJsonNumber("offset").longValue());
            }
            assertEquals(List.of(0L, 1L, 2L), offsets);
            assertEquals(200, pixy.post("/topics/" + topic + "/acks?group=" + group + "&partition=0&offset=1",
                    "text/plain", "").statusCode());
            assertEquals(200, pixy.post("/topics/" + topic + "/acks?group=" + group + "&partition=0&offset=2",
                    "text/plain", "").statusCode());
            TestKafka.Waits.until(Duration.ofSeconds(30), "offset 0 with 1-2 acked (BC)", () -> {
                var c = kafka.committed(group, topic).get(0);
                return c != null && c.offset() == 0 && c.metadata().equals("BC");
            });

            JsonObject again = object(pixy.get(messages() + "&noAck").body());

            assertEquals(0, again.getJsonNumber("offset").longValue());
            assertEquals(b64("m0"), again.getString("value"));
        }
    }

    @Test
    void servedPartitionsAreForgottenWithTheGroupsLastMemberOnThisInstance() throws Exception {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast().ackTimeout(Duration.ofSeconds(1))
                .subscriptionTimeout(Duration.ofSeconds(1)))) {
            join(pixy);
            kafka.produce(topic, 0, null, "m0");
            kafka.produce(topic, 0, null, "m1");
            long first = object(pixy.get(messages() + "&noAck").body()).getJsonNumber("offset").longValue();
            assertEquals(200, pixy.post("/topics/" + topic + "/acks?group=" + group + "&partition=0&offset=" + first,
                    "text/plain", "").statusCode(), "served here: the ack is taken");
            long second = object(pixy.get(messages() + "&noAck").body()).getJsonNumber("offset").longValue();

            String missing = "acks channel missing for {" + group + " " + topic + " 0}";

            // once the topic expires the member commits and leaves, and the instance forgets the partition
            TestKafka.Waits.until(Duration.ofSeconds(60), missing, () -> {
                var late = pixy.post("/topics/" + topic + "/acks?group=" + group + "&partition=0&offset=" + second,
                        "text/plain", "");
                return late.statusCode() == 500 && error(late.body()).equals(missing);
            });
            assertTrue(kafka.admin().describeConsumerGroups(List.of(group)).describedGroups().get(group).get()
                    .members().isEmpty(), "the group has no member left");
        }
    }

    @Test
    void aMessageLargerThanAFetchResponseMayCarryIsStillDelivered() {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast())) {
            join(pixy);
            String big = "x".repeat(600 * 1024);
            kafka.produce(topic, 0, null, big);
            kafka.produce(topic, 0, null, "after it");

            JsonObject first = object(pixy.get(messages()).body());
            JsonObject second = object(pixy.get(messages()).body());

            assertEquals(b64(big), first.getString("value"));
            assertEquals(b64("after it"), second.getString("value"));
        }
    }

    @Test
    void withMaxRetriesZeroAnUnackedMessageIsOfferedOnlyOnce() {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast().ackTimeout(Duration.ofSeconds(1)).maxRetries(0)
                .longPollingTimeout(Duration.ofSeconds(3)))) {
            join(pixy);
            kafka.produce(topic, 0, null, "once");
            assertEquals(0, object(pixy.get(messages() + "&noAck").body()).getJsonNumber("offset").longValue());

            assertEquals(408, pixy.get(messages() + "&noAck").statusCode());
            TestKafka.Waits.until(Duration.ofSeconds(30), "the dropped message committed",
                    () -> kafka.committed(group, topic).get(0).offset() == 1);
        }
    }

    @Test
    void noMoreThanMaxPendingPlusOneMessagesAreOutstandingPerPartition() {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast().maxPendingMessages(2))) {
            join(pixy);
            for (int i = 0; i < 5; i++) {
                kafka.produce(topic, 0, null, "m" + i);
            }
            for (int i = 0; i < 3; i++) {
                assertEquals(i, object(pixy.get(messages() + "&noAck").body()).getJsonNumber("offset").longValue());
            }
            assertEquals(408, pixy.get(messages() + "&noAck").statusCode());

            JsonObject next = object(pixy.get(messages() + "&ackPartition=0&ackOffset=0").body());

            assertEquals(3, next.getJsonNumber("offset").longValue());
        }
    }

    @Test
    void moreParkedRequestsThanTheChannelBufferGet429() {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast().channelBufferSize(2)
                .longPollingTimeout(Duration.ofSeconds(4)))) {
            join(pixy);
            List<CompletableFuture<HttpResponse<String>>> requests = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                requests.add(CompletableFuture.supplyAsync(() -> pixy.get(messages()), Background.THREADS));
            }
            List<Integer> statuses = requests.stream().map(CompletableFuture::join).map(HttpResponse::statusCode)
                    .sorted().toList();

            // the original holds one request and queues channel_buffer_size more
            assertEquals(List.of(408, 408, 408, 429, 429), statuses);
            HttpResponse<String> rejected = requests.stream().map(CompletableFuture::join)
                    .filter(r -> r.statusCode() == 429).findFirst().orElseThrow();
            assertEquals("Too many requests. Consider increasing `consumer.channel_buffer_size` "
                         + "(https://github.com/mailgun/kafka-pixy/blob/master/default.yaml#L43)",
                    error(rejected.body()));
        }
    }

    @Test
    void aDisabledConsumerAnswersUnavailable() {
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast().disabled())) {
            HttpResponse<String> rs = pixy.get(messages());
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> pixy.grpc().consumeNAck(
                    ConsNAckRq.newBuilder().setTopic(topic).setGroup(group).setAutoAck(true).build()));

            assertEquals(503, rs.statusCode());
            assertEquals("service is disabled by configuration", error(rs.body()));
            assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
            assertEquals("service is disabled by configuration", e.getStatus().getDescription());
        }
    }

    @Test
    void aGroupResumesAfterACleanRestartExactlyWhereItsAcksLeftIt() {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast())) {
            join(pixy);
            for (int i = 0; i < 6; i++) {
                kafka.produce(topic, 0, null, "m" + i);
            }
            for (int i = 0; i < 6; i++) {
                assertEquals(i, object(pixy.get(messages() + "&noAck").body()).getJsonNumber("offset").longValue());
            }
            for (int o : new int[]{0, 1, 2, 4}) {
                assertEquals(200, pixy.post("/topics/" + topic + "/acks?group=" + group + "&partition=0&offset=" + o,
                        "text/plain", "").statusCode());
            }
        }
        var committed = kafka.committed(group, topic).get(0);
        assertEquals(3, committed.offset());
        assertEquals("BB", committed.metadata());
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast())) {
            List<Long> offsets = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                offsets.add(object(pixy.get(messages()).body()).getJsonNumber("offset").longValue());
            }
            assertEquals(List.of(3L, 5L), offsets);
            assertEquals(408, pixy.get(messages()).statusCode());
        }
    }

    @Test
    void sparseAcksCommittedByAnotherInstanceAreSkipped() {
        kafka.createTopic(topic, 1);
        for (int i = 0; i < 40; i++) {
            kafka.produce(topic, 0, null, "m" + i);
        }
        kafka.commit(group, topic, 0, 2, "BgB");
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast())) {
            List<Long> offsets = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> rs = pixy.get(messages());
                assertEquals(200, rs.statusCode(), rs.body());
                offsets.add(object(rs.body()).getJsonNumber("offset").longValue());
            }
            assertEquals(List.of(2L, 35L, 36L), offsets);
        }
    }

    @Test
    void acksOnAnInstanceThatNeverServedThePartitionFailWithTheOriginalsTexts() {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast())) {
            HttpResponse<String> unknown = pixy.post("/topics/" + topic + "/acks?group=" + group
                                                     + "&partition=0&offset=3", "text/plain", "");
            HttpResponse<String> noAck = pixy.post("/topics/" + topic + "/acks?group=" + group + "&noAck",
                    "text/plain", "");
            HttpResponse<String> negative = pixy.post("/topics/" + topic + "/acks?group=" + group
                                                      + "&partition=-1&offset=3", "text/plain", "");
            StatusRuntimeException grpc = assertThrows(StatusRuntimeException.class, () -> pixy.grpc().ack(
                    AckRq.newBuilder().setTopic(topic).setGroup(group).setPartition(0).setOffset(3).build()));

            assertEquals(500, unknown.statusCode());
            assertEquals("acks channel missing for {" + group + " " + topic + " 0}", error(unknown.body()));
            assertEquals("acks channel missing for {" + group + " " + topic + " -1}", error(noAck.body()));
            assertEquals(400, negative.statusCode());
            assertEquals("invalid ack: bad partition: -1", error(negative.body()));
            assertEquals(Status.Code.UNKNOWN, grpc.getStatus().getCode());
        }
    }

    @Test
    void rejectsAndRenewalsTakeTheAcksParametersAndGiveItsAnswers() {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast())) {
            List<String> queries = List.of("", "?group=", "?group=a&group=b", "?group=" + group,
                    "?group=" + group + "&partition=0", "?group=" + group + "&partition=x&offset=1",
                    "?group=" + group + "&partition=-1&offset=3", "?group=" + group + "&partition=0&offset=3",
                    "?group=" + group + "&noAck");
            for (String verb : List.of("rejects", "renewals")) {
                for (String path : List.of("/topics/" + topic + "/", "/clusters/nope/topics/" + topic + "/")) {
                    for (String query : queries) {
                        HttpResponse<String> ack = pixy.post(path + "acks" + query, "text/plain", "");
                        HttpResponse<String> other = pixy.post(path + verb + query, "text/plain", "");
                        assertEquals(ack.statusCode() + " " + ack.body(), other.statusCode() + " " + other.body(),
                                verb + query + " on " + path);
                        assertTrue(ack.statusCode() >= 400, "bad or not held: " + query);
                    }
                }
            }
            var stream = io.kafkapixy.stream.v1.PixyStreamGrpc.newBlockingStub(pixy.channel());
            StatusRuntimeException badAck = assertThrows(StatusRuntimeException.class, () -> pixy.grpc().ack(
                    AckRq.newBuilder().setTopic(topic).setGroup(group).setPartition(-1).setOffset(3).build()));
            StatusRuntimeException badRenewal = assertThrows(StatusRuntimeException.class, () -> stream.renew(
                    io.kafkapixy.stream.v1.RenewRequest.newBuilder().setTopic(topic).setGroup(group).setPartition(-1)
                            .setOffset(3).build()));
            assertEquals(badAck.getStatus().toString(), badRenewal.getStatus().toString());
            StatusRuntimeException unknownCluster = assertThrows(StatusRuntimeException.class, () -> stream.renew(
                    io.kafkapixy.stream.v1.RenewRequest.newBuilder().setCluster("nope").setTopic(topic)
                            .setGroup(group).setPartition(0).setOffset(3).build()));
            StatusRuntimeException ackUnknownCluster = assertThrows(StatusRuntimeException.class, () -> pixy.grpc()
                    .ack(AckRq.newBuilder().setCluster("nope").setTopic(topic).setGroup(group).setPartition(0)
                            .setOffset(3).build()));
            assertEquals(ackUnknownCluster.getStatus().toString(), unknownCluster.getStatus().toString());
        }
    }

    @Test
    void badConsumeParametersGetTheOriginalsTexts() {
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast())) {
            assertEquals("one consumer group is expected, but 0 provided",
                    error(pixy.get("/topics/" + topic + "/messages").body()));
            assertEquals("one consumer group is expected, but 2 provided",
                    error(pixy.get("/topics/" + topic + "/messages?group=a&group=b").body()));
            assertEquals("consumer group must not be empty",
                    error(pixy.get("/topics/" + topic + "/messages?group=").body()));
            assertEquals("bad ackPartition: [x]: strconv.ParseInt: parsing \"x\": invalid syntax",
                    error(pixy.get(messages() + "&ackPartition=x&ackOffset=1").body()));
            assertEquals("bad ackOffset: [99999999999999999999]: strconv.ParseInt: parsing "
                         + "\"99999999999999999999\": value out of range",
                    error(pixy.get(messages() + "&ackPartition=1&ackOffset=99999999999999999999").body()));
            assertEquals("ackPartition and ackOffset either both should be provided or neither",
                    error(pixy.get(messages() + "&ackOffset=1").body()));
            StatusRuntimeException badAck = assertThrows(StatusRuntimeException.class, () -> pixy.grpc()
                    .consumeNAck(ConsNAckRq.newBuilder().setTopic(topic).setGroup(group).setAckPartition(-1).build()));
            assertEquals(Status.Code.INVALID_ARGUMENT, badAck.getStatus().getCode());
            assertEquals("invalid ack: bad partition: -1", badAck.getStatus().getDescription());
            StatusRuntimeException noGroup = assertThrows(StatusRuntimeException.class, () -> pixy.grpc()
                    .consumeNAck(ConsNAckRq.newBuilder().setTopic(topic).setAutoAck(true).build()));
            assertEquals(Status.Code.INVALID_ARGUMENT, noGroup.getStatus().getCode());
            assertEquals("consumer group must not be empty", noGroup.getStatus().getDescription());
        }
    }

    @Test
    void aCommittedOffsetBeyondTheEndSkipsUpToItOnceMessagesArrive() {
        kafka.createTopic(topic, 1);
        for (int i = 0; i < 5; i++) {
            kafka.produce(topic, 0, null, "m" + i);
        }
        kafka.commit(group, topic, 0, 7, "");
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast())) {
            assertEquals(408, pixy.get(messages()).statusCode());
            for (int i = 5; i < 9; i++) {
                kafka.produce(topic, 0, null, "m" + i);
            }

            assertEquals(7, object(pixy.get(messages()).body()).getJsonNumber("offset").longValue());
        }
    }

    @Test
    void aCommittedOffsetThatExpiredStartsAtTheOldestAndIsCommittedAtOnce() throws Exception {
        kafka.createTopic(topic, 1);
        for (int i = 0; i < 5; i++) {
            kafka.produce(topic, 0, null, "m" + i);
        }
        kafka.commit(group, topic, 0, 1, "");
        kafka.admin().deleteRecords(Map.of(new org.apache.kafka.common.TopicPartition(topic, 0),
                org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(3))).all()
                .get(30, java.util.concurrent.TimeUnit.SECONDS);
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast())) {
            assertEquals(3, object(pixy.get(messages() + "&noAck").body()).getJsonNumber("offset").longValue());
            TestKafka.Waits.until(Duration.ofSeconds(30), "the oldest offset committed",
                    () -> kafka.committed(group, topic).get(0).offset() == 3);
        }
    }

    @Test
    void aMissingTopicTimesOutWithoutHurtingOtherTopicsOfTheGroup() {
        try (var strict = io.kafkapixy.embedded.EmbeddedKafka.start(Map.of("auto.create.topics.enable", "false"));
             RunningPixy pixy = RunningPixy.start(RunningPixy.config(strict.bootstrapServers(), "kp_strict",
                     ConsumerSettingsBuilder.fast()))) {
            try (var admin = org.apache.kafka.clients.admin.Admin.create(Map.of("bootstrap.servers",
                    strict.bootstrapServers()))) {
                admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, 1, (short) 1)))
                        .all().get(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            CompletableFuture<HttpResponse<String>> missing = CompletableFuture.supplyAsync(
                    () -> pixy.get("/topics/no-such-topic/messages?group=" + group), Background.THREADS);
            assertEquals(408, pixy.get(messages()).statusCode());
            pixy.post("/topics/" + topic + "/messages?sync", "text/plain", "still flowing");

            HttpResponse<String> rs = pixy.get(messages());

            assertEquals(200, rs.statusCode(), rs.body());
            assertEquals(b64("still flowing"), object(rs.body()).getString("value"));
            assertEquals(408, missing.join().statusCode());
            assertEquals(408, pixy.get("/topics/no-such-topic/messages?group=" + group).statusCode());
        }
    }

    @Test
    void onShutdownParkedRequestsAreAnsweredUnavailable() {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast().longPollingTimeout(Duration.ofSeconds(30)))) {
            CompletableFuture<HttpResponse<String>> parked =
                    CompletableFuture.supplyAsync(() -> pixy.get(messages()), Background.THREADS);
            var consumers = pixy.app().proxies().get("").consumers();
            TestKafka.Waits.until(Duration.ofSeconds(30), "a parked request", () -> consumers.parkedRequests() == 1);

            pixy.app().close();

            HttpResponse<String> rs = parked.join();
            assertEquals(503, rs.statusCode());
            assertEquals("service is shutting down", error(rs.body()));
        }
    }

    @Test
    void transactionMarkersDoNotStallTheCommittedOffset() {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast())) {
            join(pixy);
            kafka.produceInTransaction(topic, 0, List.of("t0", "t1", "t2"));
            kafka.produce(topic, 0, null, "after");
            Set<String> values = new HashSet<>();
            for (int i = 0; i < 4; i++) {
                values.add(decode(object(pixy.get(messages()).body()).getString("value")));
            }
            assertEquals(Set.of("t0", "t1", "t2", "after"), values);
            long end = kafka.endOffsets(topic, 1).get(0);

            try {
                TestKafka.Waits.until(Duration.ofSeconds(30), "the committed offset at the end (" + end + ")", () -> {
                    var c = kafka.committed(group, topic).get(0);
                    return c != null && c.offset() == end && c.metadata().isEmpty();
                });
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + ", committed: " + kafka.committed(group, topic), e);
            }
        }
    }

    @Test
    void theProtoDefaultAckOfPartitionZeroOffsetZeroAcksNothingThisInstanceDidNotServe() {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start(ConsumerSettingsBuilder.fast())) {
            join(pixy);
            kafka.produce(topic, 0, null, "first");

            ConsRs rs = pixy.grpc().consumeNAck(ConsNAckRq.newBuilder().setTopic(topic).setGroup(group).build());

            assertEquals(0, rs.getOffset());
            assertEquals("first", rs.getMessage().toStringUtf8());
        }
    }

    private static String decode(String b64) {
        return new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8);
    }

    private RunningPixy start(ConsumerSettingsBuilder consumer) {
        return RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_" + group, consumer));
    }

    /** The first consume of a group subscribes it; it times out on a topic with nothing new. */
    private boolean assigned() {
        try {
            return !kafka.assignment(group, topic).isEmpty();
        } catch (IllegalStateException groupNotThereYet) {
            return false;
        }
    }

    private void join(RunningPixy pixy) {
        assertEquals(408, pixy.get(messages()).statusCode());
    }

    private String messages() {
        return "/topics/" + topic + "/messages?group=" + group;
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }
}
