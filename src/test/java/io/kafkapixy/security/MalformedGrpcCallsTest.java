package io.kafkapixy.security;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.zip.GZIPOutputStream;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.kafkapixy.config.LimitsConfig;
import io.kafkapixy.testing.RawHttp2;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import mailgun.kafkapixy.ConsNAckRq;
import mailgun.kafkapixy.ProdRq;
import mailgun.kafkapixy.ProdRs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gRPC calls that client libraries never send, written frame by frame: each is answered with a status of its own
 * within a second, never a hang until the client's deadline and never a connection error; and the next call on
 * the same connection is served. Nothing a refused call carried reaches Kafka.
 */
class MalformedGrpcCallsTest {

    /**
     * "At once": each case is answered in milliseconds here; the bound leaves room for a noisy shared machine and is
     * still far below any client deadline that a hang would run into.
     */
    private static final Duration AT_ONCE = Duration.ofSeconds(5);
    private static final String PRODUCE = "/KafkaPixy/Produce";

    private static TestKafka kafka;
    private static RunningPixy pixy;
    private static String topic;

    @BeforeAll
    static void start() {
        kafka = TestKafka.get();
        topic = kafka.createTopic(TestKafka.uniqueTopic("frames"), 1);
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap()));
        try (RawHttp2 h2 = connect()) { // the server's first call loads its classes: not a malformed case's time
            assertNextCallServed(h2);
        }
    }

    @AfterAll
    static void stop() {
        if (pixy != null) {
            pixy.close();
        }
    }

    @Test
    void aCallWhoseHeaderNamesAreLiteralsAsGrpcCoreSendsThemIsServed() {
        // every header a literal with a literal name, :path included (RFC 7541 section 6.2.2)
        try (RawHttp2 h2 = RawHttp2.connectWithLiteralNames(pixy.app().server().grpcPort().orElseThrow())) {
            RawHttp2.Answer a = h2.call(PRODUCE, produce("literal names"), Duration.ofSeconds(30));

            assertEquals(0, a.grpcStatus(), a.toString());
            ProdRs rs = ProdRs.parseFrom(ByteBuffer.wrap(a.data(), 5, a.data().length - 5));
            assertArrayEquals(bytes("literal names"), kafka.read(topic, 0, rs.getOffset()).value());
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aBodyThatEndsInsideTheLengthPrefixIsRefusedAtOnce() {
        long before = end();
        try (RawHttp2 h2 = connect()) {
            RawHttp2.Answer a = h2.call(PRODUCE, new byte[] {0, 0, 0}, AT_ONCE);

            assertRefused(a, Status.Code.INTERNAL, "Encountered end-of-stream mid-frame");
            assertNextCallServed(h2);
        }
        assertEquals(before + 1, end(), "only the normal call wrote");
    }

    @Test
    void aLengthPrefixOverTheLimitIsRefusedWithoutReadingTheBody() {
        long before = end();
        double refusedBefore = grpcRequests("Produce", "RESOURCE_EXHAUSTED");
        try (RawHttp2 h2 = connect()) {
            int id = h2.newStream();
            h2.headers(id, h2.grpcHeaders(PRODUCE), false);
            // declares one byte more than the limit, and sends none of it: the answer cannot wait for the body
            int declared = LimitsConfig.DEFAULT.grpcMaxRequestBytes() + 1;
            h2.data(id, ByteBuffer.allocate(5).put((byte) 0).putInt(declared).array(), false);

            RawHttp2.Answer a = h2.await(id, AT_ONCE);

            assertRefused(a, Status.Code.RESOURCE_EXHAUSTED, "gRPC message exceeds maximum size "
                                                             + (declared - 1) + ": " + declared);
            assertNextCallServed(h2);
        }
        assertEquals(before + 1, end());
        TestKafka.Waits.until(Duration.ofSeconds(30), "the refused call counted, though no call object saw it",
                () -> grpcRequests("Produce", "RESOURCE_EXHAUSTED") == refusedBefore + 1);
    }

    @Test
    void theCompressedFlagWithoutAnEncodingIsRefusedAtOnce() {
        long before = end();
        try (RawHttp2 h2 = connect()) {
            RawHttp2.Answer a = h2.call(PRODUCE, RawHttp2.grpcMessage(true, produceMessage("no encoding")),
                    AT_ONCE);

            assertRefused(a, Status.Code.INTERNAL, "Can't decode compressed gRPC message as compression not configured");
            assertNextCallServed(h2);
        }
        assertEquals(before + 1, end());
    }

    @Test
    void theCompressedFlagWithTheIdentityEncodingIsRefusedAtOnce() {
        long before = end();
        try (RawHttp2 h2 = connect()) {
            RawHttp2.Answer a = h2.call(PRODUCE, RawHttp2.grpcMessage(true, produceMessage("identity")), AT_ONCE,
                    "grpc-encoding", "identity");

            assertRefused(a, Status.Code.INTERNAL, "Can't decode compressed gRPC message as compression not configured");
            assertNextCallServed(h2);
        }
        assertEquals(before + 1, end());
    }

    @Test
    void gzipThatIsNotGzipIsRefusedAtOnceAsInvalid() {
        long before = end();
        try (RawHttp2 h2 = connect()) {
            RawHttp2.Answer a = h2.call(PRODUCE, RawHttp2.grpcMessage(true, produceMessage("not gzip")), AT_ONCE,
                    "grpc-encoding", "gzip");

            assertEquals(Status.Code.INVALID_ARGUMENT.value(), a.grpcStatus(), a.toString());
            assertEquals("invalid request message: Not in GZIP format", a.grpcMessage());
            assertNextCallServed(h2);
        }
        assertEquals(before + 1, end());
    }

    @Test
    void gzipThatGrowsPastTheLimitIsRefusedAsTooLarge() throws Exception {
        long before = end();
        try (RawHttp2 h2 = connect()) {
            byte[] big = ProdRq.newBuilder().setTopic(topic)
                    .setMessage(ByteString.copyFrom(new byte[2 * LimitsConfig.DEFAULT.grpcMaxRequestBytes()]))
                    .build().toByteArray();
            ByteArrayOutputStream zipped = new ByteArrayOutputStream();
            try (GZIPOutputStream gz = new GZIPOutputStream(zipped)) {
                gz.write(big);
            }
            RawHttp2.Answer a = h2.call(PRODUCE, RawHttp2.grpcMessage(true, zipped.toByteArray()), AT_ONCE,
                    "grpc-encoding", "gzip");

            assertRefused(a, Status.Code.RESOURCE_EXHAUSTED, "Decompressed gRPC message exceeds maximum size "
                                                             + LimitsConfig.DEFAULT.grpcMaxRequestBytes());
            assertNextCallServed(h2);
        }
        assertEquals(before + 1, end());
    }

    @Test
    void realGzipIsServed() throws Exception {
        try (RawHttp2 h2 = connect()) {
            ByteArrayOutputStream zipped = new ByteArrayOutputStream();
            try (GZIPOutputStream gz = new GZIPOutputStream(zipped)) {
                gz.write(produceMessage("gzipped"));
            }
            RawHttp2.Answer a = h2.call(PRODUCE, RawHttp2.grpcMessage(true, zipped.toByteArray()),
                    Duration.ofSeconds(30), "grpc-encoding", "gzip");

            assertEquals(0, a.grpcStatus(), a.toString());
            ProdRs rs = ProdRs.parseFrom(ByteBuffer.wrap(a.data(), 5, a.data().length - 5));
            assertArrayEquals(bytes("gzipped"), kafka.read(topic, 0, rs.getOffset()).value());
        }
    }

    @Test
    void anEncodingTheServerDoesNotKnowIsUnimplementedAndSaysWhatItAccepts() {
        long before = end();
        try (RawHttp2 h2 = connect()) {
            RawHttp2.Answer a = h2.call(PRODUCE, RawHttp2.grpcMessage(true, produceMessage("brotli")), AT_ONCE,
                    "grpc-encoding", "br");

            assertEquals(Status.Code.UNIMPLEMENTED.value(), a.grpcStatus(), a.toString());
            assertEquals("Can't find decompressor for br", a.grpcMessage());
            assertEquals("gzip", a.trailers().getOrDefault("grpc-accept-encoding",
                    a.headers().get("grpc-accept-encoding")), "what the server takes: " + a);
            RawHttp2.Answer spoofed = h2.call(PRODUCE, produce("spoofed"), Duration.ofSeconds(30),
                    "kafkapixy-internal-refused-encoding", "br");
            assertEquals(0, spoofed.grpcStatus(), "a client cannot set the server's own marker: " + spoofed);
        }
        assertEquals(before + 1, end());
    }

    @Test
    void namesWithControlCharactersGetTheRestTextsAsInvalidArgument() {
        long before = end();
        try (RawHttp2 h2 = connect()) {
            RawHttp2.Answer badTopic = h2.call(PRODUCE, RawHttp2.grpcMessage(false, ProdRq.newBuilder()
                    .setTopic("a\u0000b").setMessage(ByteString.copyFromUtf8("x")).build().toByteArray()), AT_ONCE);
            RawHttp2.Answer badCluster = h2.call(PRODUCE, RawHttp2.grpcMessage(false, ProdRq.newBuilder()
                    .setCluster("c\u0001").setTopic(topic).setMessage(ByteString.copyFromUtf8("x")).build()
                    .toByteArray()), AT_ONCE);
            RawHttp2.Answer badGroup = h2.call("/KafkaPixy/ConsumeNAck", RawHttp2.grpcMessage(false,
                    ConsNAckRq.newBuilder().setTopic(topic).setGroup("g\nh").build().toByteArray()), AT_ONCE);

            for (RawHttp2.Answer a : new RawHttp2.Answer[] {badTopic, badCluster, badGroup}) {
                assertEquals(Status.Code.INVALID_ARGUMENT.value(), a.grpcStatus(), a.toString());
            }
            assertEquals(restError("/topics/a%00b/messages?sync"), badTopic.grpcMessage());
            assertEquals(restError("/clusters/c%01/topics/" + topic + "/messages?sync"), badCluster.grpcMessage());
            assertEquals("consumer group must not contain control characters", badGroup.grpcMessage());
            assertEquals(400, pixy.get("/topics/" + topic + "/messages?group=g%0Ah").statusCode());
            assertNextCallServed(h2);
        }
        assertEquals(before + 1, end());
    }

    @Test
    void anUnknownMethodIsUnimplementedAndCountedWithoutItsName() {
        double before = grpcRequests("other", "UNIMPLEMENTED");
        try (RawHttp2 h2 = connect()) {
            RawHttp2.Answer a = h2.call("/KafkaPixy/NoSuchMethod", produce("nowhere"), AT_ONCE);

            assertEquals(Status.Code.UNIMPLEMENTED.value(), a.grpcStatus(), a.toString());
            assertNextCallServed(h2);
        }
        TestKafka.Waits.until(Duration.ofSeconds(30), "counted as method \"other\"",
                () -> grpcRequests("other", "UNIMPLEMENTED") == before + 1);
        assertTrue(!pixy.get("/metrics").body().contains("NoSuchMethod"), "no label from a client's method name");
    }

    private static double grpcRequests(String method, String status) {
        var rs = pixy.get("/metrics");
        assertEquals(200, rs.statusCode(), rs.body());
        return io.kafkapixy.testing.Scrape.parse(rs.body()).value("kafkapixy_api_requests_total", "api", "grpc",
                "method", method, "status", status);
    }

    /** The REST API's error text for a produce to this path. */
    private static String restError(String path) {
        var rs = pixy.post(path, "text/plain", "x");
        assertEquals(400, rs.statusCode(), rs.body());
        return io.kafkapixy.testing.JsonBodies.error(rs.body());
    }

    private static void assertRefused(RawHttp2.Answer a, Status.Code code, String text) {
        assertEquals(code.value(), a.grpcStatus(), "a refusal of its own: " + a);
        assertEquals(text, a.grpcMessage(), a.toString());
    }

    /** A normal produce on the same connection is served: the refusal did not break the connection. */
    private static void assertNextCallServed(RawHttp2 h2) {
        RawHttp2.Answer a = h2.call(PRODUCE, produce("next"), Duration.ofSeconds(30));
        assertEquals(0, a.grpcStatus(), "the next call on the connection: " + a);
    }

    private static RawHttp2 connect() {
        return RawHttp2.connect(pixy.app().server().grpcPort().orElseThrow());
    }

    private static byte[] produce(String text) {
        return RawHttp2.grpcMessage(false, produceMessage(text));
    }

    private static byte[] produceMessage(String text) {
        return ProdRq.newBuilder().setTopic(topic).setMessage(ByteString.copyFromUtf8(text)).build().toByteArray();
    }

    private static long end() {
        return kafka.endOffsets(topic, 1).get(0);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
