package io.kafkapixy.server;

import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import io.kafkapixy.testing.RawHttp;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import io.kafkapixy.testing.TwoClusters;
import jakarta.json.JsonObject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static io.kafkapixy.testing.JsonBodies.error;
import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * REST produce against a real broker; what landed is read back with a plain Kafka consumer.
 * A second cluster, {@code strict}, is a broker that does not auto-create topics.
 */
class RestProduceTest {

    private static TestKafka kafka;
    private static TwoClusters clusters;
    private static RunningPixy pixy;
    private static String topic4;

    @BeforeAll
    static void start() {
        kafka = TestKafka.get();
        clusters = TwoClusters.start();
        pixy = clusters.pixy();
        topic4 = kafka.createTopic(TestKafka.uniqueTopic("rest4"), 4);
    }

    @AfterAll
    static void stop() {
        clusters.close();
    }

    @Test
    void aSyncProduceWithAKeyAnswersPartitionAndOffsetOfTheRecordInKafka() {
        HttpResponse<String> rs = pixy.post("/topics/" + topic4 + "/messages?key=bar&sync", "text/plain",
                "Good news everyone!");

        assertEquals(200, rs.statusCode());
        assertEquals("application/json", rs.headers().firstValue("Content-Type").orElseThrow());
        JsonObject body = object(rs.body());
        assertEquals(2, body.getInt("partition"));
        ConsumerRecord<byte[], byte[]> record = kafka.read(topic4, 2, body.getJsonNumber("offset").longValue());
        assertArrayEquals(bytes("bar"), record.key());
        assertArrayEquals(bytes("Good news everyone!"), record.value());
    }

    @ParameterizedTest(name = "key \"{0}\" lands on partition {1} of 4")
    @CsvSource({"0,3", "1,0", "2,1", "3,2", "4,3", "5,0", "6,1", "7,2", "8,3", "9,0", "foo,1", "bar,2", "A,0", "B,3",
            "C,2", "D,1"})
    void keysLandWhereTheOriginalPutsThem(String key, int partition) {
        HttpResponse<String> rs = pixy.post("/topics/" + topic4 + "/messages?sync&key=" + key, "text/plain", "v");

        assertEquals(200, rs.statusCode(), rs.body());
        assertEquals(partition, object(rs.body()).getInt("partition"));
    }

    @Test
    void sixtyFourKeysOnASixtyFourPartitionTopicGrowThePartitionsAsTheOriginalDoes() {
        String topic = kafka.createTopic(TestKafka.uniqueTopic("rest64"), 64);
        long[] expected = {0, 75, 3, 0, 57, 0, 0, 8, 58, 6, 30, 59, 0, 75, 63, 0, 48, 37, 49, 0, 75, 2, 0, 51, 0, 0,
                0, 79, 1, 33, 61, 39, 75, 62, 0, 4, 36, 0, 0, 79, 61, 28, 53, 35, 18, 0, 79, 0, 32, 63, 38, 0, 9, 59,
                7, 31, 14, 0, 79, 60, 29, 55, 34, 67};
        for (int i = 0; i < 64; i++) {
            for (int n = 0; n < i; n++) {
                assertEquals(200, pixy.post("/topics/" + topic + "/messages?key=" + i, "text/plain", "m")
                        .statusCode());
            }
        }
        TestKafka.Waits.until(Duration.ofSeconds(60), "all 2016 async messages", () ->
                kafka.endOffsets(topic, 64).values().stream().mapToLong(Long::longValue).sum() == 2016);
        Map<Integer, Long> ends = kafka.endOffsets(topic, 64);
        for (int p = 0; p < 64; p++) {
            assertEquals(expected[p], ends.get(p), "partition " + p);
        }
    }

    @Test
    void anEmptyKeyParameterWritesAnEmptyNonNullKeyOnPartitionThree() {
        JsonObject body = object(pixy.post("/topics/" + topic4 + "/messages?key=&sync", "text/plain", "x").body());

        assertEquals(3, body.getInt("partition"));
        ConsumerRecord<byte[], byte[]> record = kafka.read(topic4, 3, body.getJsonNumber("offset").longValue());
        assertNotNull(record.key());
        assertEquals(0, record.key().length);
    }

    @Test
    void withoutAKeyParameterTheRecordKeyIsNull() {
        JsonObject body = object(pixy.post("/topics/" + topic4 + "/messages?sync", "text/plain", "x").body());

        ConsumerRecord<byte[], byte[]> record = kafka.read(topic4, body.getInt("partition"),
                body.getJsonNumber("offset").longValue());
        assertNull(record.key());
    }

    @ParameterizedTest(name = "Content-Type {0} takes the raw body")
    @ValueSource(strings = {"text/plain", "application/json", "application/json; charset=UTF-8",
            "application/vnd.foo+json"})
    void textAndJsonContentTypesTakeTheRawBodyAsTheMessage(String contentType) {
        String json = "{\"a\": [1, 2]}";
        JsonObject body = object(pixy.post("/topics/" + topic4 + "/messages?sync&key=k", contentType, json).body());

        ConsumerRecord<byte[], byte[]> record = kafka.read(topic4, body.getInt("partition"),
                body.getJsonNumber("offset").longValue());
        assertArrayEquals(bytes(json), record.value());
    }

    @Test
    void anEmptyTextBodyIsAnEmptyMessage() {
        JsonObject body = object(pixy.post("/topics/" + topic4 + "/messages?sync&key=k", "text/plain", "").body());

        ConsumerRecord<byte[], byte[]> record = kafka.read(topic4, body.getInt("partition"),
                body.getJsonNumber("offset").longValue());
        assertEquals(0, record.value().length);
    }

    @Test
    void aFormBodyGivesTheMessageAndMayGiveTheKeyAndSync() {
        String form = "msg=" + URLEncoder.encode("May the Force be with you!", StandardCharsets.UTF_8)
                      + "&key=foo&sync";
        HttpResponse<String> rs = pixy.post("/topics/" + topic4 + "/messages", "application/x-www-form-urlencoded",
                form);

        assertEquals(200, rs.statusCode(), rs.body());
        JsonObject body = object(rs.body());
        assertEquals(1, body.getInt("partition"));
        ConsumerRecord<byte[], byte[]> record = kafka.read(topic4, 1, body.getJsonNumber("offset").longValue());
        assertArrayEquals(bytes("May the Force be with you!"), record.value());
        assertArrayEquals(bytes("foo"), record.key());
    }

    @Test
    void formBodyValuesComeBeforeQueryValues() {
        HttpResponse<String> rs = pixy.post("/topics/" + topic4 + "/messages?key=bar&sync",
                "application/x-www-form-urlencoded", "msg=m&key=foo");

        assertEquals(1, object(rs.body()).getInt("partition"), rs.body());
    }

    @Test
    void keysAreTheRawBytesTheClientSentAsGoParsesThem() {
        JsonObject pipe = object(RawHttp.body(RawHttp.exchange(pixy.restPort(), "POST /topics/" + topic4
                + "/messages?key=a|b&sync HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
                + "Content-Length: 1\r\nConnection: close\r\n\r\nx")));
        JsonObject latin1 = object(pixy.post("/topics/" + topic4 + "/messages?key=%E9&sync", "text/plain", "x")
                .body());
        JsonObject plus = object(pixy.post("/topics/" + topic4 + "/messages?key=a+b&sync", "text/plain", "x")
                .body());

        assertArrayEquals(bytes("a|b"), kafka.read(topic4, pipe.getInt("partition"),
                pipe.getJsonNumber("offset").longValue()).key());
        assertArrayEquals(new byte[]{(byte) 0xE9}, kafka.read(topic4, latin1.getInt("partition"),
                latin1.getJsonNumber("offset").longValue()).key());
        assertArrayEquals(bytes("a b"), kafka.read(topic4, plus.getInt("partition"),
                plus.getJsonNumber("offset").longValue()).key());
    }

    @Test
    void aFormPairWithABadEscapeIsDroppedAsGoDoes() {
        HttpResponse<String> rs = pixy.post("/topics/" + topic4 + "/messages?sync",
                "application/x-www-form-urlencoded", "msg=100%");

        assertEquals(400, rs.statusCode());
        assertEquals("empty message", error(rs.body()));
    }

    @Test
    void syncIsAPresenceFlagWhateverItsValue() {
        HttpResponse<String> rs = pixy.post("/topics/" + topic4 + "/messages?sync=false", "text/plain", "x");

        assertEquals(200, rs.statusCode());
        assertNotNull(object(rs.body()).getJsonNumber("offset"));
    }

    @Test
    void anAsyncProduceAnswersAnEmptyObjectAndTheMessageLands() {
        String topic = kafka.createTopic(TestKafka.uniqueTopic("async"), 1);

        HttpResponse<String> rs = pixy.post("/topics/" + topic + "/messages", "text/plain", "later");

        assertEquals(200, rs.statusCode());
        assertEquals(0, object(rs.body()).size());
        assertArrayEquals(bytes("later"), kafka.read(topic, 0, 0).value());
    }

    @Test
    void xKafkaHeadersBecomeRecordHeadersUnderGoCanonicalNames() {
        HttpResponse<String> rs = pixy.send(HttpRequest.newBuilder(pixy.uri("/topics/" + topic4 + "/messages?sync"))
                .header("Content-Type", "text/plain")
                .header("x-kafka-foo", "YmFy")
                .header("X-KAFKA-my-hdr", "")
                .header("X-Kafka-Multi", "MQ==")
                .header("X-Kafka-Multi", "Mg==")
                .POST(HttpRequest.BodyPublishers.ofString("with headers")));

        assertEquals(200, rs.statusCode(), rs.body());
        JsonObject body = object(rs.body());
        ConsumerRecord<byte[], byte[]> record = kafka.read(topic4, body.getInt("partition"),
                body.getJsonNumber("offset").longValue());
        assertArrayEquals(bytes("bar"), record.headers().lastHeader("Foo").value());
        assertArrayEquals(new byte[0], record.headers().lastHeader("My-Hdr").value());
        java.util.List<String> multi = new java.util.ArrayList<>();
        for (Header h : record.headers().headers("Multi")) {
            multi.add(new String(h.value(), StandardCharsets.UTF_8));
        }
        assertEquals(java.util.List.of("1", "2"), multi);
    }

    @Test
    void aHeaderThatIsNotBase64IsRefusedAndNothingIsWritten() {
        String topic = kafka.createTopic(TestKafka.uniqueTopic("badhdr"), 1);
        HttpResponse<String> rs = pixy.send(HttpRequest.newBuilder(pixy.uri("/topics/" + topic + "/messages?sync"))
                .header("Content-Type", "text/plain")
                .header("x-kafka-foo", "YmFy!")
                .POST(HttpRequest.BodyPublishers.ofString("x")));

        assertEquals(400, rs.statusCode());
        assertEquals("Invalid base64 encoding for header: X-Kafka-Foo", error(rs.body()));
        assertEquals(0L, kafka.endOffsets(topic, 1).get(0));
    }

    @Test
    void aHeaderValueWithoutBase64PaddingIsRefused() {
        HttpResponse<String> rs = pixy.send(HttpRequest.newBuilder(pixy.uri("/topics/" + topic4 + "/messages?sync"))
                .header("Content-Type", "text/plain")
                .header("X-Kafka-Foo", "YmE")
                .POST(HttpRequest.BodyPublishers.ofString("x")));

        assertEquals(400, rs.statusCode());
        assertEquals("Invalid base64 encoding for header: X-Kafka-Foo", error(rs.body()));
    }

    @Test
    void anAsyncProduceToATopicTheClusterDoesNotHaveIsRefusedRatherThanDropped() {
        HttpResponse<String> rs = pixy.post("/clusters/strict/topics/no-such-topic/messages", "text/plain", "x");

        assertEquals(404, rs.statusCode());
        assertEquals("kafka server: Request was for a topic or partition that does not exist on this broker.",
                error(rs.body()));
    }

    @ParameterizedTest(name = "\"{0}\" is refused")
    @CsvSource(delimiter = '|', value = {
            "text/plain; charset=utf-8|unsupported content type text/plain; charset=utf-8",
            "application/x-www-form-urlencoded; charset=UTF-8|unsupported content type "
            + "application/x-www-form-urlencoded; charset=UTF-8",
            "application/octet-stream|unsupported content type application/octet-stream",
            "text/html|unsupported content type text/html"})
    void otherContentTypesAreRefused(String contentType, String text) {
        HttpResponse<String> rs = pixy.post("/topics/" + topic4 + "/messages?sync", contentType, "msg=x");

        assertEquals(400, rs.statusCode());
        assertEquals(text, error(rs.body()));
    }

    @Test
    void aMissingContentTypeIsRefusedWithATrailingSpaceInTheText() {
        HttpResponse<String> rs = pixy.post("/topics/" + topic4 + "/messages?sync", null, "x");

        assertEquals(400, rs.statusCode());
        assertEquals("unsupported content type ", error(rs.body()));
    }

    @Test
    void aFormWithoutMsgIsAnEmptyMessage() {
        HttpResponse<String> rs = pixy.post("/topics/" + topic4 + "/messages?sync",
                "application/x-www-form-urlencoded", "key=a");

        assertEquals(400, rs.statusCode());
        assertEquals("empty message", error(rs.body()));
    }

    @Test
    void aTextBodyWithoutContentLengthIsRefused() {
        String rs = RawHttp.exchange(pixy.restPort(), "POST /topics/" + topic4 + "/messages?sync HTTP/1.1\r\n"
                + "Host: localhost\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n"
                + "Connection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n");

        assertEquals(400, RawHttp.status(rs));
        assertEquals("missing Content-Length header", error(RawHttp.body(rs)));
    }

    @Test
    void aBodyShorterThanItsContentLengthIsRefusedAndNothingIsWritten() {
        String topic = kafka.createTopic(TestKafka.uniqueTopic("short"), 1);
        String rs = RawHttp.exchange(pixy.restPort(), "POST /topics/" + topic + "/messages?sync HTTP/1.1\r\n"
                + "Host: localhost\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n"
                + "Connection: close\r\n\r\nhello");

        assertEquals(400, RawHttp.status(rs));
        assertEquals("failed to read message: unexpected EOF", error(RawHttp.body(rs)));
        assertEquals(0L, kafka.endOffsets(topic, 1).get(0));
    }

    @Test
    void aContentLengthThatIsNotANumberIsABadRequest() {
        String rs = RawHttp.exchange(pixy.restPort(), "POST /topics/" + topic4 + "/messages?sync HTTP/1.1\r\n"
                + "Host: localhost\r\nContent-Type: text/plain\r\nContent-Length: abc\r\n"
                + "Connection: close\r\n\r\nhello");

        assertEquals(400, RawHttp.status(rs));
    }

    @Test
    void aBodyAnnouncedLargerThanMaxMessageBytesIsRefusedBeforeItIsRead() {
        String rs = RawHttp.exchange(pixy.restPort(), "POST /topics/" + topic4 + "/messages?sync HTTP/1.1\r\n"
                + "Host: localhost\r\nContent-Type: text/plain\r\nContent-Length: 5000000\r\n"
                + "Connection: close\r\n\r\nonly a little");

        assertEquals(413, RawHttp.status(rs));
        assertEquals("kafka server: Message was too large, server rejected it to avoid allocation error.",
                error(RawHttp.body(rs)));
    }

    @Test
    void anUnknownClusterIsRefusedBeforeAnythingElse() {
        HttpResponse<String> rs = pixy.post("/clusters/nope/topics/" + topic4 + "/messages", "bad/type", "x");

        assertEquals(400, rs.statusCode());
        assertEquals("proxy `nope` does not exist", error(rs.body()));
    }

    @Test
    void aClusterNamedInThePathGetsTheMessage() {
        String topic = "strict-" + Long.toHexString(System.nanoTime());
        try (var admin = org.apache.kafka.clients.admin.Admin.create(Map.of("bootstrap.servers",
                clusters.strictBootstrap()))) {
            admin.createTopics(java.util.List.of(new org.apache.kafka.clients.admin.NewTopic(topic, 1, (short) 1)))
                    .all().get(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }

        HttpResponse<String> rs = pixy.post("/clusters/strict/topics/" + topic + "/messages?sync", "text/plain",
                "to strict");

        assertEquals(200, rs.statusCode(), rs.body());
        assertEquals(0, object(rs.body()).getJsonNumber("offset").longValue());
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(Map.of(
                "bootstrap.servers", clusters.strictBootstrap(),
                "key.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer",
                "value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer"))) {
            var tp = new org.apache.kafka.common.TopicPartition(topic, 0);
            assertEquals(1L, consumer.endOffsets(java.util.List.of(tp), Duration.ofSeconds(30)).get(tp));
        }
    }

    @Test
    void aSyncProduceToATopicTheClusterDoesNotHaveIsNotFound() {
        HttpResponse<String> rs = pixy.post("/clusters/strict/topics/no-such-topic/messages?sync", "text/plain", "x");

        assertEquals(404, rs.statusCode());
        assertEquals("kafka server: Request was for a topic or partition that does not exist on this broker.",
                error(rs.body()));
    }

    @Test
    void aMessageOverMaxMessageBytesIsRefusedWith413() {
        String topic = kafka.createTopic(TestKafka.uniqueTopic("big"), 1);
        HttpResponse<String> rs = pixy.post("/topics/" + topic + "/messages", "text/plain", "x".repeat(1_000_001));

        assertEquals(413, rs.statusCode());
        assertEquals("kafka server: Message was too large, server rejected it to avoid allocation error.",
                error(rs.body()));
        assertEquals(0L, kafka.endOffsets(topic, 1).get(0));
    }

    @ParameterizedTest(name = "topic \"{0}\" is refused")
    @ValueSource(strings = {"bad%20name", "caf%C3%A9", "a%3Fb", "semi%3Bcolon"})
    void anInvalidTopicNameIsABadRequest(String topic) {
        HttpResponse<String> rs = pixy.post("/topics/" + topic + "/messages?sync", "text/plain", "x");

        assertEquals(400, rs.statusCode(), rs.body());
        assertNotNull(error(rs.body()));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
