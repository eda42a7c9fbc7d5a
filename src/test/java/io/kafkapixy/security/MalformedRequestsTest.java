package io.kafkapixy.security;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Descriptors.MethodDescriptor;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor.Marshaller;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.helidon.webserver.http.HttpRouting;
import io.kafkapixy.server.http.RestApi;
import io.kafkapixy.server.http.RestRoute;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RawHttp;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import mailgun.kafkapixy.KafkaPixyProto;
import mailgun.kafkapixy.ProdRq;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Malformed requests to every REST route and every gRPC method: wrong types, huge values, invalid base64, negative
 * partitions, bad UTF-8, truncated bodies and messages, random bytes (a fixed seed, so a failure replays). Every
 * answer must be a client error (4xx / a client-side gRPC code) or a success the input really earned; the only 5xx
 * allowed is the original's own answer to an ack of a partition this instance never served (500 / UNKNOWN
 * {@code acks channel missing ...}). The server keeps serving throughout, no topic appears, and the canary topic that
 * most requests name grows by exactly the produce requests that were answered 200.

 */
class MalformedRequestsTest {

    private static final long SEED = 20261201L;
    private static final Set<Status.Code> CLIENT_ERRORS = Set.of(Status.Code.INVALID_ARGUMENT,
            Status.Code.NOT_FOUND, Status.Code.FAILED_PRECONDITION, Status.Code.OUT_OF_RANGE,
            Status.Code.RESOURCE_EXHAUSTED, Status.Code.ALREADY_EXISTS, Status.Code.PERMISSION_DENIED,
            Status.Code.UNAUTHENTICATED);

    private static TestKafka kafka;
    private static RunningPixy pixy;
    private static String canary;

    @BeforeAll
    static void start() {
        kafka = TestKafka.get();
        canary = kafka.createTopic(TestKafka.uniqueTopic("canary"), 1);
        kafka.produce(canary, 0, null, "already-there");
        // short long polls: a malformed consume that is still a valid one ends quickly with its 408
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_fuzz",
                new ConsumerSettingsBuilder().longPollingTimeout(Duration.ofMillis(300))));
    }

    @AfterAll
    static void stop() {
        if (pixy != null) {
            pixy.close();
        }
    }

    /**
     * Every route, with bad and good values in every path parameter, query parameter (empty, repeated, over-long,
     * not UTF-8, control characters, numbers out of range) and body shape: each request on a connection of its own
     * gets a complete answer within 5 s (milliseconds here), so each one also proves that the server still serves a
     * new connection after the one before.
     */
    @Test
    void everyRestRouteAnswersMalformedRequestsWithClientErrors() {
        Set<String> topicsBefore = topics();
        long endBefore = end();
        List<String> failures = new ArrayList<>();
        Map<String, Integer> statuses = new TreeMap<>();
        int producedToCanary = 0;
        Random random = new Random(SEED);
        for (RestRoute route : routes()) {
            for (String path : paths(route.path())) {
                for (byte[] request : requests(route.method().text(), path, random)) {
                    // a complete answer while the connection stays open: no half-close to end a server's wait
                    String rs = RawHttp.answer(pixy.restPort(), request, java.time.Duration.ofSeconds(5));
                    String line = new String(request, 0, Math.min(request.length, 160), StandardCharsets.ISO_8859_1)
                            .split("\r\n")[0];
                    if (rs.length() < 12) {
                        failures.add("no answer to " + line);
                        continue;
                    }
                    int status = RawHttp.status(rs);
                    statuses.merge(String.valueOf(status), 1, Integer::sum);
                    // the original's answers to an ack it cannot apply; a reject or renewal of a message not out
                    // with a client gets the second
                    boolean allowed5xx = status == 500 && (RawHttp.body(rs).contains("acks channel missing")
                                                           || RawHttp.body(rs).contains("\"ack timeout\""));
                    if (status >= 500 && !allowed5xx) {
                        failures.add(status + " " + RawHttp.body(rs) + " <- " + line);
                    }
                    if (status == 200 && route.method().text().equals("POST") && path.contains("/topics/" + canary
                                                                                               + "/messages")) {
                        producedToCanary++;
                    }
                }
            }
        }
        System.out.println("REST statuses: " + statuses);
        assertEquals(List.of(), failures, "statuses seen: " + statuses);
        assertTrue(statuses.getOrDefault("400", 0) > 100, "the malformed requests were refused as such: " + statuses);
        assertEquals(200, pixy.get("/_ping").statusCode(), "still serving");
        assertEquals(topicsBefore, topics(), "no topic was created");
        assertEquals(endBefore + producedToCanary, end(), "only the produce requests answered 200 wrote");
    }

    @Test
    void everyGrpcMethodAnswersMalformedMessagesWithClientErrors() throws Exception {
        Set<String> topicsBefore = topics();
        long endBefore = end();
        List<String> failures = new ArrayList<>();
        Map<String, Integer> codes = new TreeMap<>();
        int producedToCanary = 0;
        Random random = new Random(SEED);
        for (MethodDescriptor method : KafkaPixyProto.getDescriptor().getServices().getFirst().getMethods()) {
            io.grpc.MethodDescriptor<byte[], byte[]> raw = io.grpc.MethodDescriptor.<byte[], byte[]>newBuilder()
                    .setType(MethodType.UNARY)
                    .setFullMethodName(io.grpc.MethodDescriptor.generateFullMethodName(
                            method.getService().getFullName(), method.getName()))
                    .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
            for (byte[] message : messages(random)) {
                Status.Code code;
                String description;
                try {
                    ClientCalls.blockingUnaryCall(pixy.channel(), raw,
                            CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), message);
                    code = Status.Code.OK;
                    description = "";
                } catch (StatusRuntimeException e) {
                    code = e.getStatus().getCode();
                    description = String.valueOf(e.getStatus().getDescription());
                }
                codes.merge(method.getName() + ":" + code, 1, Integer::sum);
                boolean allowedUnknown = code == Status.Code.UNKNOWN && method.getName().equals("Ack")
                                         && description.startsWith("acks channel missing");
                if (code != Status.Code.OK && !CLIENT_ERRORS.contains(code) && !allowedUnknown) {
                    failures.add(method.getName() + " " + code + " " + description + " <- "
                                 + ByteString.copyFrom(message).substring(0, Math.min(48, message.length)));
                }
                if (code == Status.Code.OK && method.getName().equals("Produce")) {
                    try {
                        if (ProdRq.parseFrom(message).getTopic().equals(canary)) {
                            producedToCanary++;
                        }
                    } catch (com.google.protobuf.InvalidProtocolBufferException ignored) {
                        // accepted bytes that the Java parser refuses cannot have named the canary
                    }
                }
            }
        }
        System.out.println("gRPC codes: " + codes);
        assertEquals(List.of(), failures, "codes seen: " + codes);
        for (MethodDescriptor method : KafkaPixyProto.getDescriptor().getServices().getFirst().getMethods()) {
            assertTrue(codes.getOrDefault(method.getName() + ":INVALID_ARGUMENT", 0) >= 5,
                    method.getName() + " refused the malformed messages as such: " + codes);
        }
        assertEquals(200, pixy.get("/_ping").statusCode(), "still serving");
        assertEquals(topicsBefore, topics(), "no topic was created");
        assertEquals(endBefore + producedToCanary, end(), "only the produce calls answered OK wrote");
    }

    /**
     * What never reaches a route: each gets a complete answer while the client keeps its connection open (a client
     * that half-closes would hide a server waiting for more bytes), and the server serves the next connection.
     * "At once": milliseconds here; the bound leaves room for a noisy shared machine.
     */
    @Test
    void connectionsThatAreNotHttp11RequestsGetACompleteAnswerAtOnce() {
        java.time.Duration atOnce = java.time.Duration.ofSeconds(5);
        byte[] binary = new byte[256];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) i;
        }
        String over = "GET /topics/" + canary + "/messages?key=" + "k".repeat((1 << 20) + 10) + " HTTP/1.1\r\n"
                      + "Host: x\r\n\r\n";
        List<Object[]> cases = List.of(
                new Object[] {"not HTTP", "GARBAGE\r\n\r\n".getBytes(StandardCharsets.US_ASCII), 400,
                        "malformed HTTP request: not an HTTP/1.1 request line"},
                new Object[] {"binary bytes", binary, 400, "malformed HTTP request: not an HTTP/1.1 request line"},
                new Object[] {"a TLS handshake on the plaintext port", new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01},
                        400, "malformed HTTP request: not an HTTP/1.1 request line"},
                new Object[] {"a request line over limits.max_request_line_bytes",
                        over.getBytes(StandardCharsets.US_ASCII), 414, "Request URI too long."});
        long endBefore = end();
        for (Object[] c : cases) {
            String rs = RawHttp.answer(pixy.restPort(), (byte[]) c[1], atOnce);

            assertEquals((int) c[2], RawHttp.status(rs), c[0] + ": " + rs);
            assertTrue(rs.contains("\r\nContent-Type: application/json\r\n"), c[0] + ": " + rs);
            assertEquals((String) c[3], io.kafkapixy.testing.JsonBodies.error(RawHttp.body(rs)), c[0] + ": " + rs);
            assertEquals(200, pixy.get("/_ping").statusCode(), "served after " + c[0]);
        }
        assertEquals(endBefore, end(), "nothing written");
    }

    /** Header shapes no well-behaved client sends, on the produce route: each a complete 4xx, nothing written. */
    @Test
    void malformedHeadersGetAClientErrorAndWriteNothing() {
        String target = "POST /topics/" + canary + "/messages?sync HTTP/1.1\r\nHost: x\r\n";
        List<String> heads = List.of(
                "Content-Type: text/plain\r\nContent-Length: 1\r\nContent-Length: 2\r\n",
                "Content-Type: text/plain\r\nContent-Length: -1\r\n",
                "Content-Type: text/plain\r\nContent-Length: 99999999999999999999\r\n",
                "Content-Type: text/plain\r\nContent-Length: 1\r\nX-Kafka-Trace: not base64!\r\n",
                "Content-Type: text/plain\r\nContent-Length: 1\r\nX-Kafka-T\u0001: MTIz\r\n",
                "Content-Type: text/plain\r\nContent-Length: 1\r\nBad Header Name: x\r\n",
                "Content-Type: text/plain\r\nContent-Length: 1\r\nNoColon\r\n",
                "Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nv\r\n0",
                "Content-Type: text/plain\r\nContent-Length: 1\r\nX-Long: " + "v".repeat(20_000) + "\r\n");
        long endBefore = end();
        for (String head : heads) {
            String request = target + head + (head.contains("chunked") ? "\r\n\r\n" : "\r\nv");
            String rs = RawHttp.answer(pixy.restPort(), request.getBytes(StandardCharsets.ISO_8859_1),
                    java.time.Duration.ofSeconds(5));

            int status = RawHttp.status(rs);
            String what = head.substring(0, Math.min(head.length(), 120));
            assertTrue(status >= 400 && status < 500, what + " -> " + rs);
            assertTrue(rs.contains("\r\nContent-Type: application/json"), what + " -> " + rs);
        }
        assertEquals(endBefore, end(), "nothing written");
        assertEquals(200, pixy.get("/_ping").statusCode());
    }

    @Test
    void aKeyOf64KibInTheRequestLineIsProducedAsTheOriginalTakesIt() {
        String key = "k".repeat(64 * 1024);
        String rs = RawHttp.answer(pixy.restPort(), ("POST /topics/" + canary + "/messages?sync&key=" + key
                + " HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\nlong")
                .getBytes(StandardCharsets.US_ASCII), java.time.Duration.ofSeconds(60));

        assertEquals(200, RawHttp.status(rs), rs);
        long offset = io.kafkapixy.testing.JsonBodies.object(RawHttp.body(rs)).getJsonNumber("offset").longValue();
        assertEquals(key, new String(kafka.read(canary, 0, offset).key(), StandardCharsets.UTF_8));
    }

    @Test
    void aUnaryCallWithTwoMessagesIsRefusedAndWritesNothing() throws Exception {
        long before = end();
        io.grpc.MethodDescriptor<byte[], byte[]> streaming = io.grpc.MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(MethodType.CLIENT_STREAMING)
                .setFullMethodName(io.grpc.MethodDescriptor.generateFullMethodName("KafkaPixy", "Produce"))
                .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
        byte[] valid = ProdRq.newBuilder().setTopic(canary).setMessage(ByteString.copyFromUtf8("twice")).build()
                .toByteArray();
        for (byte[] second : List.of(valid, new byte[] {0x12, (byte) 0xFF})) {
            var call = pixy.channel().newCall(streaming, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS));
            var response = new java.util.concurrent.CompletableFuture<Status>();
            call.start(new io.grpc.ClientCall.Listener<>() {
                @Override
                public void onClose(Status status, io.grpc.Metadata trailers) {
                    response.complete(status);
                }
            }, new io.grpc.Metadata());
            call.request(1);
            call.sendMessage(valid);
            call.sendMessage(second);
            call.halfClose();

            Status status = response.get(60, TimeUnit.SECONDS);

            assertEquals(Status.Code.INVALID_ARGUMENT, status.getCode(), status.toString());
            assertEquals("invalid request: more than one message on a unary call", status.getDescription());
        }
        assertEquals(before, end());
        assertEquals(200, pixy.get("/_ping").statusCode());
    }

    private static List<RestRoute> routes() {
        RestApi api = new RestApi(null);
        api.register(HttpRouting.builder());
        return api.routes();
    }

    /** The route's path with its parameters filled with bad and good values. */
    private static List<String> paths(String template) {
        List<String> topics = List.of(canary, "bad%20topic", "%FF%FE", "a".repeat(300), "..", "a%00b", "a%0Ab",
                "%7F");
        List<String> out = new ArrayList<>();
        for (String topic : template.contains("{topic}") ? topics : List.of("")) {
            for (String cluster : template.contains("{cluster}") ? List.of("default", "nope%FF") : List.of("")) {
                out.add(template.replace("{topic}", topic).replace("{cluster}", cluster));
            }
        }
        return out;
    }

    private static final List<String> QUERIES = List.of(
            "", "?group=", "?group=%FF%FE", "?group=" + "g".repeat(300), "?group=g&partition=-1&offset=-5",
            "?group=g&partition=abc&offset=1e99", "?group=g&ackPartition=99999999999&ackOffset=x",
            "?group=g&ackPartition=-1&ackOffset=-1", "?group=g&group=h", "?sync&key=%FF%00",
            "?sync&key=" + "k".repeat(2000), "?group=g&noAck&autoAck", "?withPartitions=maybe", "?%zz=%",
            "?group=g&partition=0&offset=9223372036854775808", "?group=%00", "?group=g%0Ah", "?group=g%7F",
            "?group=g&partition=2147483648&offset=0", "?group=g&partition=0&offset=-9223372036854775809",
            "?group=g&ackPartition=0&ackOffset=1&ackPartition=1", "?sync&key=a&key=b", "?group=" + "%FF".repeat(500));

    private static List<byte[]> requests(String method, String path, Random random) {
        List<byte[]> out = new ArrayList<>();
        for (String query : QUERIES) {
            out.add(request(method, path + query, null, new byte[0]));
        }
        if (method.equals("POST")) {
            List<byte[]> bodies = List.of(
                    "{".getBytes(StandardCharsets.UTF_8),
                    "{\"partition\":\"x\",\"offset\":[]}".getBytes(StandardCharsets.UTF_8),
                    "[{\"partition\":-1,\"offset\":\"abc\"}]".getBytes(StandardCharsets.UTF_8),
                    "[{\"partition\":99999999999999,\"offset\":1e999}]".getBytes(StandardCharsets.UTF_8),
                    "{\"value\":\"not base64!!\",\"key\":\"@@@\"}".getBytes(StandardCharsets.UTF_8),
                    "partition=-7&offset=zz&group=%FF".getBytes(StandardCharsets.UTF_8),
                    new byte[] {(byte) 0xFF, (byte) 0xFE, '{', 0, '"'},
                    randomBytes(random, 64));
            for (String contentType : List.of("application/json", "text/plain", "application/x-www-form-urlencoded",
                    "foo/bar; charset=nope")) {
                for (byte[] body : bodies) {
                    out.add(request(method, path + "?group=g&partition=0&offset=1", contentType, body));
                }
            }
        }
        return out;
    }

    private static byte[] request(String method, String target, String contentType, byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringBuilder head = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: x\r\n");
        if (contentType != null) {
            head.append("Content-Type: ").append(contentType).append("\r\n");
        }
        head.append("Content-Length: ").append(body.length).append("\r\nConnection: close\r\n\r\n");
        out.writeBytes(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.writeBytes(body);
        return out.toByteArray();
    }

    /** Wire-level protobuf that no well-behaved client sends, plus random bytes. */
    private static List<byte[]> messages(Random random) throws Exception {
        List<byte[]> out = new ArrayList<>();
        ProdRq valid = ProdRq.newBuilder().setTopic(canary).setMessage(ByteString.copyFromUtf8("v"))
                .setKeyValue(ByteString.copyFromUtf8("k")).build();
        byte[] bytes = valid.toByteArray();
        out.add(java.util.Arrays.copyOf(bytes, bytes.length / 2));          // truncated
        out.add(new byte[] {0x10, 0x01});                                    // field 2 (a string) as a varint
        out.add(new byte[] {0x12, 0x02, (byte) 0xFF, (byte) 0xFE});          // field 2: bad UTF-8
        out.add(new byte[] {0x1A, 0x02, (byte) 0xFF, (byte) 0xFE});          // field 3: bad UTF-8
        out.add(new byte[] {0x12, (byte) 0xFF, (byte) 0xFF, 0x0F, 'a'});     // a length far past the end
        out.add(new byte[] {0x0A, 0x01, 'x', (byte) 0x80});                  // a varint that never ends
        out.add(new byte[] {0x3A, 0x03, 0x0A, 0x05, 'k'});                   // a nested header cut short
        out.add(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F}); // an invalid tag
        out.add(fields(2, canary, 3, "g", 6, -1, 7, Long.MIN_VALUE));        // negative partition, offsets
        out.add(fields(2, canary, 3, "g", 4, -1, 5, -1));
        out.add(fields(2, canary, 3, "g", 5, Integer.MAX_VALUE));
        out.add(fields(2, "t".repeat(100_000), 3, "g".repeat(100_000)));    // huge values
        out.add(fields(1, "nope", 2, canary, 3, "g"));                       // unknown cluster
        out.add(fields(2, "bad topic", 3, "g"));
        out.add(new byte[0]);                                                 // every field unset
        for (int i = 0; i < 6; i++) {
            out.add(randomBytes(random, 1 + random.nextInt(64)));
        }
        return out;
    }

    /** A message of (field number, value) pairs: strings length-delimited, numbers as varints. */
    private static byte[] fields(Object... pairs) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        for (int i = 0; i < pairs.length; i += 2) {
            int field = (Integer) pairs[i];
            switch (pairs[i + 1]) {
                case String s -> out.writeString(field, s);
                case Integer n -> out.writeInt32(field, n);
                case Long n -> out.writeInt64(field, n);
                default -> throw new IllegalArgumentException();
            }
        }
        out.flush();
        return bytes.toByteArray();
    }

    private static byte[] randomBytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static Set<String> topics() {
        try {
            return new java.util.TreeSet<>(kafka.admin().listTopics().names().get(60, TimeUnit.SECONDS));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static long end() {
        return kafka.endOffsets(canary, 1).get(0);
    }

    private static final Marshaller<byte[]> BYTES = new Marshaller<>() {
        @Override
        public java.io.InputStream stream(byte[] value) {
            return new java.io.ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(java.io.InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    };
}
