package io.kafkapixy.server;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.kafkapixy.config.ZooKeeperConfig;
import io.kafkapixy.consumer.DeadLetter;
import io.kafkapixy.embedded.EmbeddedKafka;
import io.kafkapixy.stream.v1.ConsumeRequest;
import io.kafkapixy.stream.v1.Message;
import io.kafkapixy.stream.v1.PixyStreamGrpc;
import io.kafkapixy.stream.v1.RejectRequest;
import io.kafkapixy.stream.v1.RenewRequest;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.StreamConsumer;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonObject;
import io.kafkapixy.testing.TestZooKeeper;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Renewals and the dead-letter topic on the real broker, in every kind of group: a classic group with Kafka's and with
 * ZooKeeper's membership, and a share group. The dead-letter topic is read with a plain kafka-clients consumer, what
 * was settled with the Admin client.
 */
class DeadLetterTest {

    enum Kind {
        KAFKA, ZOOKEEPER, SHARE;

        ConsumerSettingsBuilder settings() {
            return switch (this) {
                case KAFKA -> ConsumerSettingsBuilder.fast();
                case ZOOKEEPER -> ConsumerSettingsBuilder.fast().zooKeeperMembership();
                case SHARE -> ConsumerSettingsBuilder.fast().shareMembership();
            };
        }
    }

    private static TestingServer zooKeeper;

    private final TestKafka kafka = TestKafka.get();
    private final String topic = TestKafka.uniqueTopic("dl");
    private final String deadLetters = topic + ".dlt";
    private final String group = TestKafka.uniqueTopic("dlgroup");

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zooKeeper = TestZooKeeper.running();
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zooKeeper.close();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aRejectedMessageIsWrittenToTheDeadLetterTopicWithItsOriginThenSettled(Kind kind) throws Exception {
        prepare(kind);
        long produced = produceWithHeader("k0", "m0");
        try (RunningPixy pixy = start(kind, kind.settings())) {
            JsonObject m = pixy.takeMessage(messages("&noAck"));
            Instant before = Instant.now();

            HttpResponse<String> rs = pixy.post("/topics/" + topic + "/rejects?group=" + group
                    + "&partition=0&offset=" + produced, "text/plain", "");
            assertEquals(200, rs.statusCode(), rs.body());
            assertTrue(object(rs.body()).isEmpty(), rs.body());

            ConsumerRecord<byte[], byte[]> dead = kafka.read(deadLetters, 0, 0);
            assertEquals("k0", text(dead.key()));
            assertEquals("m0", text(dead.value()));
            assertEquals("v", header(dead, "h"), "the message's own headers come along");
            assertOrigin(dead, produced, "rejected", 1);
            assertTrue(!Instant.parse(header(dead, DeadLetter.TIME)).isBefore(before.minusSeconds(5)));
            assertEquals(m.getJsonNumber("offset").longValue(), produced);
            awaitSettledUpTo(kind, produced + 1);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aMessageWhoseRetriesRanOutIsWrittenToTheDeadLetterTopicThenSettled(Kind kind) throws Exception {
        prepare(kind);
        long produced = produceWithHeader(null, "m0");
        try (RunningPixy pixy = start(kind, kind.settings().maxRetries(1).ackTimeout(Duration.ofSeconds(2))
                .longPollingTimeout(Duration.ofSeconds(5)))) {
            assertEquals(produced, pixy.takeMessage(messages("&noAck")).getJsonNumber("offset").longValue());
            assertEquals(produced, pixy.takeMessage(messages("&noAck")).getJsonNumber("offset").longValue(),
                    "offered once more (max_retries 1)");

            ConsumerRecord<byte[], byte[]> dead = kafka.read(deadLetters, 0, 0);
            assertEquals(null, dead.key());
            assertEquals("m0", text(dead.value()));
            assertOrigin(dead, produced, "retries_exhausted", 2);
            awaitSettledUpTo(kind, produced + 1);
            HttpResponse<String> none = pixy.get(messages(""));
            assertEquals(408, none.statusCode(), "given up on: " + none.body());
        }
    }

    /** ZooKeeper membership renews as Kafka's does: the partitions' state is the same code. */
    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"KAFKA", "SHARE"})
    void aRenewalKeepsAMessageFromOtherClientsPastItsAckTimeoutAndSpendsNoRetry(Kind kind) throws Exception {
        prepare(kind);
        long produced = kafka.produce(topic, 0, null, "m0");
        Duration ackTimeout = Duration.ofSeconds(4);
        try (RunningPixy pixy = start(kind, kind.settings().ackTimeout(ackTimeout).maxRetries(1)
                .longPollingTimeout(Duration.ofSeconds(3)))) {
            pixy.takeMessage(messages("&noAck"));
            var stub = PixyStreamGrpc.newBlockingStub(pixy.channel()).withDeadlineAfter(60, TimeUnit.SECONDS);
            RenewRequest renew = RenewRequest.newBuilder().setGroup(group).setTopic(topic).setPartition(0)
                    .setOffset(produced).build();
            long start = System.nanoTime();
            // renewed every half second for twice its ack_timeout, while another client asks for it
            CompletableFuture<HttpResponse<String>> other = CompletableFuture.supplyAsync(() -> pixy.get(
                    messages("")));
            while (System.nanoTime() - start < 2 * ackTimeout.toNanos()) {
                stub.renew(renew);
                Thread.sleep(500);
            }
            assertEquals(408, other.get(60, TimeUnit.SECONDS).statusCode(), "nobody else got it");

            JsonObject again = pixy.takeMessage(messages("&noAck"));
            assertEquals(produced, again.getJsonNumber("offset").longValue(), "redelivered once no longer renewed");
            StatusRuntimeException lost = assertThrows(StatusRuntimeException.class, () -> stub.renew(
                    RenewRequest.newBuilder(renew).setPartition(0).setOffset(produced + 7).build()));
            assertEquals("ack timeout", lost.getStatus().getDescription(), "a message not out cannot be renewed");
            HttpResponse<String> rs = pixy.post("/topics/" + topic + "/renewals?group=" + group
                    + "&partition=0&offset=" + produced, "text/plain", "");
            assertEquals(200, rs.statusCode(), "the REST form renews the second delivery: " + rs.body());
            HttpResponse<String> acked = pixy.post("/topics/" + topic + "/acks?group=" + group
                    + "&partition=0&offset=" + produced, "text/plain", "");
            assertEquals(200, acked.statusCode(), "its second delivery, not given up on (max_retries 1): "
                    + acked.body());
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aDeadLetterTopicThatRefusesLeavesTheMessageUnsettledUntilItTakesIt(Kind kind) throws Exception {
        prepare(kind);
        // the brokers refuse every record of the dead-letter topic until its limit is raised
        kafka.admin().createTopics(List.of(new NewTopic(deadLetters, 1, (short) 1)
                .configs(Map.of("max.message.bytes", "16")))).all().get(30, TimeUnit.SECONDS);
        long produced = kafka.produce(topic, 0, null, "m0");
        try (RunningPixy pixy = start(kind, kind.settings().maxRetries(1).ackTimeout(Duration.ofSeconds(2))
                .longPollingTimeout(Duration.ofSeconds(5)))) {
            pixy.takeMessage(messages("&noAck"));
            var stub = PixyStreamGrpc.newBlockingStub(pixy.channel()).withDeadlineAfter(60, TimeUnit.SECONDS);
            StatusRuntimeException refused = assertThrows(StatusRuntimeException.class, () -> stub.reject(
                    RejectRequest.newBuilder().setGroup(group).setTopic(topic).setPartition(0).setOffset(produced)
                            .build()));
            assertEquals(Status.Code.INTERNAL, refused.getStatus().getCode());
            assertTrue(refused.getStatus().getDescription().startsWith("the dead-letter topic refused the message: "),
                    refused.getStatus().getDescription());

            // still out with its client, then offered once more, then given up on: its dead letter refused again
            assertEquals(produced, pixy.takeMessage(messages("&noAck")).getJsonNumber("offset").longValue());
            TestKafka.Waits.until(Duration.ofSeconds(30), "a dead letter refused while its retries have run out",
                    () -> refusals(pixy) >= 2);
            assertSettledUpTo(kind, produced);
            assertEquals(0L, kafka.endOffsets(deadLetters, 1).get(0));

            kafka.admin().incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, deadLetters),
                    List.of(new AlterConfigOp(new ConfigEntry("max.message.bytes", "1048576"),
                            AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
            ConsumerRecord<byte[], byte[]> dead = kafka.read(deadLetters, 0, 0);
            assertEquals("m0", text(dead.value()));
            assertOrigin(dead, produced, "retries_exhausted", 2);
            awaitSettledUpTo(kind, produced + 1);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"KAFKA", "SHARE"})
    void aStreamsRenewalsKeepItsMessageAndItsRejectsAreDeadLettered(Kind kind) throws Exception {
        prepare(kind);
        long produced = kafka.produce(topic, 0, "k", "m0");
        Duration ackTimeout = Duration.ofSeconds(4);
        try (RunningPixy pixy = start(kind, kind.settings().ackTimeout(ackTimeout).maxRetries(1)
                .longPollingTimeout(Duration.ofSeconds(3)))) {
            StreamConsumer stream = StreamConsumer.open(pixy.channel(), group, List.of(topic), 1);
            Message m = stream.take(Duration.ofSeconds(60));
            assertEquals(produced, m.getOffset());

            CompletableFuture<HttpResponse<String>> other = CompletableFuture.supplyAsync(() -> pixy.get(
                    messages("")));
            long start = System.nanoTime();
            while (System.nanoTime() - start < 2 * ackTimeout.toNanos()) {
                stream.send(ConsumeRequest.newBuilder().addRenewals(StreamConsumer.ref(m)).build());
                Thread.sleep(500);
            }
            assertEquals(408, other.get(60, TimeUnit.SECONDS).statusCode(), "nobody else got it");

            stream.send(ConsumeRequest.newBuilder().addRejects(StreamConsumer.ref(m)).build());
            ConsumerRecord<byte[], byte[]> dead = kafka.read(deadLetters, 0, 0);
            assertEquals("k", text(dead.key()));
            assertOrigin(dead, produced, "rejected", 1);
            awaitSettledUpTo(kind, produced + 1);
            stream.halfClose();
            assertEquals(Status.Code.OK, stream.awaitEnd(Duration.ofSeconds(60)).getCode());
        }
    }

    @org.junit.jupiter.api.Test
    void aDeadLetterTopicTheBrokersDoNotCreateIsRefusedWithAClearErrorAndTheMessageStaysWithItsClient()
            throws Exception {
        try (EmbeddedKafka strict = EmbeddedKafka.start(Map.of("auto.create.topics.enable", "false"));
             Admin admin = Admin.create(Map.of("bootstrap.servers", strict.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0),
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(0))).all().get(30, TimeUnit.SECONDS);
            Properties p = new Properties();
            p.put("bootstrap.servers", strict.bootstrapServers());
            p.put("key.serializer", ByteArraySerializer.class.getName());
            p.put("value.serializer", ByteArraySerializer.class.getName());
            try (var producer = new KafkaProducer<byte[], byte[]>(p)) {
                producer.send(new ProducerRecord<>(topic, 0, null, "m0".getBytes(StandardCharsets.UTF_8)))
                        .get(30, TimeUnit.SECONDS);
            }
            try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(strict.bootstrapServers(), "dl-strict",
                    ConsumerSettingsBuilder.fast().deadLetterTopic("{topic}.dlt")
                            .longPollingTimeout(Duration.ofSeconds(5))))) {
                pixy.takeMessage(messages("&noAck"));
                HttpResponse<String> refused = pixy.post("/topics/" + topic + "/rejects?group=" + group
                        + "&partition=0&offset=0", "text/plain", "");
                assertEquals(500, refused.statusCode(), refused.body());
                assertEquals("the dead-letter topic refused the message: kafka server: Request was for a topic or "
                        + "partition that does not exist on this broker.", object(refused.body()).getString("error"));

                HttpResponse<String> acked = pixy.post("/topics/" + topic + "/acks?group=" + group
                        + "&partition=0&offset=0", "text/plain", "");
                assertEquals(200, acked.statusCode(), "still out with its client: " + acked.body());
                TestKafka.Waits.until(Duration.ofSeconds(30), "committed past it", () -> {
                    try {
                        var c = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                                .get(30, TimeUnit.SECONDS).get(new TopicPartition(topic, 0));
                        return c != null && c.offset() == 1;
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
            }
        }
    }

    private void prepare(Kind kind) throws Exception {
        kafka.createTopic(topic, 1);
        if (kind == Kind.SHARE) {
            kafka.admin().incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group),
                    List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
                            AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        } else {
            kafka.commit(group, topic, 0, 0, "");
        }
    }

    private RunningPixy start(Kind kind, ConsumerSettingsBuilder settings) {
        settings.deadLetterTopic("{topic}.dlt");
        String clientId = "dl-" + kind.name().toLowerCase();
        if (kind == Kind.ZOOKEEPER) {
            return RunningPixy.start(RunningPixy.config(kafka.bootstrap(), clientId, settings,
                    ZooKeeperConfig.DEFAULT.with(ZooKeeperConfig.SEED_PEERS, List.of(zooKeeper.getConnectString()))
                            .with(ZooKeeperConfig.CHROOT, "/dl")));
        }
        return RunningPixy.start(RunningPixy.config(kafka.bootstrap(), clientId, settings));
    }

    /** Every message before {@code next} is settled: committed past, or done in the share group. */
    private void awaitSettledUpTo(Kind kind, long next) {
        TestKafka.Waits.until(Duration.ofSeconds(30), "settled up to " + next, () -> settledUpTo(kind) == next);
    }

    private void assertSettledUpTo(Kind kind, long next) {
        assertEquals(next, settledUpTo(kind));
    }

    private long settledUpTo(Kind kind) {
        // ZooKeeper membership commits to Kafka as a classic group does
        GroupKindContractTest.Kind read = kind == Kind.SHARE ? GroupKindContractTest.Kind.SHARE
                : GroupKindContractTest.Kind.CLASSIC;
        return read.settledUpTo(kafka, group, topic);
    }

    private double refusals(RunningPixy pixy) {
        return io.kafkapixy.testing.Scrape.parse(pixy.get("/metrics").body()).sum("kafkapixy_consume_dead_letter_failures_total");
    }

    private long produceWithHeader(String key, String value) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrap());
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        try (var producer = new KafkaProducer<byte[], byte[]>(p)) {
            var record = new ProducerRecord<>(topic, 0, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                    value.getBytes(StandardCharsets.UTF_8));
            record.headers().add("h", "v".getBytes(StandardCharsets.UTF_8));
            return producer.send(record).get(30, TimeUnit.SECONDS).offset();
        }
    }

    private void assertOrigin(ConsumerRecord<byte[], byte[]> dead, long offset, String reason, int deliveries) {
        assertEquals(topic, header(dead, DeadLetter.TOPIC));
        assertEquals("0", header(dead, DeadLetter.PARTITION));
        assertEquals(Long.toString(offset), header(dead, DeadLetter.OFFSET));
        assertEquals(group, header(dead, DeadLetter.GROUP));
        assertEquals(reason, header(dead, DeadLetter.REASON));
        assertEquals(Integer.toString(deliveries), header(dead, DeadLetter.DELIVERIES));
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : text(h.value());
    }

    private static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    private String messages(String flags) {
        return "/topics/" + topic + "/messages?group=" + group + flags;
    }
}
