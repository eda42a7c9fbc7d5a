package io.kafkapixy.offset.store;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.kafkapixy.embedded.EmbeddedKafka;
import io.kafkapixy.testing.TestKafka;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RawOffsets} speaks Kafka's OffsetCommit/OffsetFetch through kafka-clients internals; these run it against a
 * real broker, checked with kafka-clients' own Admin where it can read the values, so an upgrade that changes those
 * internals fails here rather than in production.
 */
class RawOffsetsTest {

    private static final long TIMEOUT_MS = 30_000;
    private final TestKafka kafka = TestKafka.get();

    @TempDir
    Path dir;

    private static RawOffsets raw(String bootstrap) {
        return new RawOffsets(Map.of("bootstrap.servers", bootstrap));
    }

    private static String group() {
        return TestKafka.uniqueTopic("raw-offsets-group");
    }

    @Test
    void negativeOffsetsAreStoredAndReadBackVerbatim() {
        String topic = kafka.createTopic(TestKafka.uniqueTopic("raw-offsets"), 2);
        String group = group();
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        try (RawOffsets raw = raw(kafka.bootstrap())) {
            raw.commit(group, Map.of(p0, new Committed(-2, "oldest"), p1, new Committed(-1, "")), TIMEOUT_MS);

            assertEquals(Map.of(p0, new Committed(-2, "oldest"), p1, new Committed(-1, "")),
                    raw.fetch(group, Set.of(p0, p1), TIMEOUT_MS));
        }
        // kafka-clients' Admin has no way to show a negative offset: it reads them as nothing committed
        assertTrue(kafka.committed(group, topic).isEmpty());
    }

    @Test
    void offsetsAndMetadataRoundTripWithKafkaClientsOwnAdmin() {
        String topic = kafka.createTopic(TestKafka.uniqueTopic("raw-offsets"), 2);
        String group = group();
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        String sparseAcks = "BCD\u00e9\u4e2d";
        try (RawOffsets raw = raw(kafka.bootstrap())) {
            raw.commit(group, Map.of(p0, new Committed(5, sparseAcks)), TIMEOUT_MS);
            OffsetAndMetadata seen = kafka.committed(group, topic).get(0);
            assertEquals(5, seen.offset());
            assertEquals(sparseAcks, seen.metadata());

            kafka.commit(group, topic, 1, 7, "from admin");
            Map<TopicPartition, Committed> read = raw.fetch(group, Set.of(p0, p1), TIMEOUT_MS);
            assertEquals(new Committed(5, sparseAcks), read.get(p0));
            assertEquals(new Committed(7, "from admin"), read.get(p1));
        }
    }

    @Test
    void aPartitionWithNoCommitReadsAsNone() {
        String topic = kafka.createTopic(TestKafka.uniqueTopic("raw-offsets"), 1);
        TopicPartition p0 = new TopicPartition(topic, 0);
        try (RawOffsets raw = raw(kafka.bootstrap())) {
            assertEquals(Map.of(p0, Committed.NONE), raw.fetch(group(), Set.of(p0), TIMEOUT_MS));
        }
    }

    @Test
    void aGroupWithALiveMemberRefusesTheCommitAndKeepsItsOffsets() {
        String topic = kafka.createTopic(TestKafka.uniqueTopic("raw-offsets"), 1);
        String group = group();
        TopicPartition p0 = new TopicPartition(topic, 0);
        kafka.commit(group, topic, 0, 3, "kept");
        try (KafkaConsumer<byte[], byte[]> member = member(group); RawOffsets raw = raw(kafka.bootstrap())) {
            member.subscribe(List.of(topic));
            TestKafka.Waits.until(Duration.ofSeconds(60), "the member holds the partition", () -> {
                member.poll(Duration.ofMillis(100));
                return member.assignment().contains(p0);
            });

            RawOffsets.RawOffsetsException e = assertThrows(RawOffsets.RawOffsetsException.class,
                    () -> raw.commit(group, Map.of(p0, new Committed(9, "lost")), TIMEOUT_MS));
            assertFalse(e.errors().isEmpty(), e.getMessage());
            assertEquals(new Committed(3, "kept"), raw.fetch(group, Set.of(p0), TIMEOUT_MS).get(p0));
        }
    }

    @Test
    void aCommitWhileTheBrokerRestartsIsRetriedUntilTheCoordinatorIsBack() throws Exception {
        int port = freePort();
        EmbeddedKafka broker = EmbeddedKafka.start(dir.resolve("broker"), port);
        try {
            String topic = "restarts";
            createTopic(broker, topic);
            TopicPartition p0 = new TopicPartition(topic, 0);
            String group = group();
            try (RawOffsets raw = raw(broker.bootstrapServers())) {
                raw.commit(group, Map.of(p0, new Committed(1, "before")), TIMEOUT_MS);
                broker.close();

                CompletableFuture<Void> commit = CompletableFuture.runAsync(() ->
                        raw.commit(group, Map.of(p0, new Committed(2, "during")), 120_000));
                broker = EmbeddedKafka.start(dir.resolve("broker"), port);
                commit.get(150, TimeUnit.SECONDS);

                assertEquals(new Committed(2, "during"), raw.fetch(group, Set.of(p0), TIMEOUT_MS).get(p0));
            }
        } finally {
            broker.close();
        }
    }

    @Test
    void aCallThatCannotReachTheBrokerFailsAtItsDeadlineInsteadOfHanging() throws Exception {
        int nobody = freePort();
        try (RawOffsets raw = raw("127.0.0.1:" + nobody)) {
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertThrows(RuntimeException.class,
                    () -> raw.fetch(group(), Set.of(new TopicPartition("t", 0)), 1_000)));
        }
    }

    private KafkaConsumer<byte[], byte[]> member(String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(p);
    }

    private static void createTopic(EmbeddedKafka broker, String topic) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", broker.bootstrapServers());
        try (var admin = org.apache.kafka.clients.admin.Admin.create(p)) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, 1, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
