package io.kafkapixy.security;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.kafkapixy.config.AuthConfig;
import io.kafkapixy.testing.GrpcHeaders;
import io.kafkapixy.testing.RawHttp2;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import mailgun.kafkapixy.KafkaPixyGrpc;
import mailgun.kafkapixy.ProdRq;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code auth.bearer_tokens_file}: both APIs take a configured token and refuse a missing or wrong one alike (401 /
 * UNAUTHENTICATED, nothing in the answer that tells which, nothing written); {@code /_ping}, health and the gRPC
 * health service stay open for probes.
 */
class BearerTokenTest {

    @TempDir
    static Path dir;
    private static TestKafka kafka;
    private static RunningPixy pixy;
    private static String topic;

    @BeforeAll
    static void start() throws Exception {
        kafka = TestKafka.get();
        topic = kafka.createTopic(TestKafka.uniqueTopic("auth"), 1);
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, "# service tokens\nfirst-token\n\n  second-token  \n");
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap())
                .withAuth(AuthConfig.NONE.with(AuthConfig.BEARER_TOKENS_FILE, tokens.toString())));
    }

    @AfterAll
    static void stop() {
        if (pixy != null) {
            pixy.close();
        }
    }

    @Test
    void restTakesEveryConfiguredTokenAndRefusesMissingOrWrongOnesAlike() {
        long before = end();

        assertEquals(200, produce("Bearer first-token", "one").statusCode());
        assertEquals(200, produce("bearer second-token", "two").statusCode());
        HttpResponse<String> missing = produce(null, "missing");
        HttpResponse<String> wrong = produce("Bearer first-token-but-longer", "wrong");
        HttpResponse<String> otherScheme = produce("Basic Zmlyc3QtdG9rZW4=", "basic");

        for (HttpResponse<String> rs : java.util.List.of(missing, wrong, otherScheme)) {
            assertEquals(401, rs.statusCode());
            assertEquals("Unauthorized", object(rs.body()).getString("error"));
            assertEquals("Bearer", rs.headers().firstValue("WWW-Authenticate").orElse(""));
        }
        assertEquals(missing.body(), wrong.body(), "a wrong token is told nothing a missing one is not");
        assertEquals(before + 2, end(), "only the authorised messages were written");
    }

    @Test
    void everyOtherRestRouteIsClosedToo() {
        assertEquals(401, pixy.get("/topics").statusCode());
        assertEquals(401, pixy.get("/topics/" + topic + "/messages?group=g").statusCode());
        assertEquals(401, pixy.get("/metrics").statusCode());
        assertEquals(401, pixy.get("/no/such/route").statusCode());
    }

    @Test
    void dotSegmentsAndMatrixParametersDoNotMakeAClosedRouteLookOpen() {
        long before = end();
        for (String path : java.util.List.of("/health/../topics/" + topic + "/messages?sync",
                "/health/..;x/topics/" + topic + "/messages?sync", "/_ping/../topics/" + topic + "/messages?sync",
                "/health/./../metrics")) {
            String rs = io.kafkapixy.testing.RawHttp.exchange(pixy.restPort(), "POST " + path + " HTTP/1.1\r\n"
                    + "Host: x\r\nContent-Type: text/plain\r\nContent-Length: 1\r\nConnection: close\r\n\r\nv");
            int status = io.kafkapixy.testing.RawHttp.status(rs);
            org.junit.jupiter.api.Assertions.assertTrue(status == 401 || status == 404 || status == 400,
                    path + " -> " + rs);
        }
        assertEquals(before, end(), "nothing written without a token");
    }

    @Test
    void probesNeedNoToken() {
        assertEquals(200, pixy.get("/_ping").statusCode());
        assertEquals(200, pixy.get("/health/live").statusCode());
        assertEquals(200, pixy.get("/health/ready").statusCode());
        assertEquals(200, pixy.get("/health").statusCode());
        var status = HealthGrpc.newBlockingStub(pixy.channel()).withDeadlineAfter(30, TimeUnit.SECONDS)
                .check(HealthCheckRequest.newBuilder().setService("").build()).getStatus();
        assertEquals("SERVING", status.name());
    }

    @Test
    void grpcTakesAConfiguredTokenAndRefusesMissingOrWrongOnesAlike() {
        long before = end();

        grpc("Bearer second-token").produce(request("grpc-ok"));
        StatusRuntimeException missing = assertThrows(StatusRuntimeException.class,
                () -> grpc(null).produce(request("grpc-missing")));
        StatusRuntimeException wrong = assertThrows(StatusRuntimeException.class,
                () -> grpc("Bearer nope").produce(request("grpc-wrong")));

        for (StatusRuntimeException e : java.util.List.of(missing, wrong)) {
            assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
            assertEquals("unauthenticated", e.getStatus().getDescription());
        }
        assertEquals(before + 1, end());
        assertEquals("grpc-ok", new String(kafka.read(topic, 0, before).value(), StandardCharsets.UTF_8));
    }

    @Test
    void theStreamingServiceTakesTheSameTokens() throws Exception {
        long before = end();

        assertEquals(0, streamProduce("Bearer second-token", "stream-ok").getCode());
        for (String authorization : new String[] {null, "Bearer nope"}) {
            java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> streamProduce(authorization, "stream-refused"));
            assertEquals(Status.Code.UNAUTHENTICATED, Status.fromThrowable(e).getCode());
        }
        assertEquals(before + 1, end());
    }

    /** One message over a streaming Produce; its answer, or the stream's failure. */
    private static io.kafkapixy.stream.v1.ProduceResponse streamProduce(String authorization, String value)
            throws Exception {
        var stub = io.kafkapixy.stream.v1.PixyStreamGrpc.newStub(pixy.channel())
                .withDeadlineAfter(30, TimeUnit.SECONDS);
        if (authorization != null) {
            stub = stub.withInterceptors(GrpcHeaders.header("authorization", authorization));
        }
        java.util.concurrent.CompletableFuture<io.kafkapixy.stream.v1.ProduceResponse> answer =
                new java.util.concurrent.CompletableFuture<>();
        var requests = stub.produce(new io.grpc.stub.StreamObserver<>() {
            @Override
            public void onNext(io.kafkapixy.stream.v1.ProduceResponse rs) {
                answer.complete(rs);
            }

            @Override
            public void onError(Throwable t) {
                answer.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                answer.completeExceptionally(new AssertionError("ended without an answer"));
            }
        });
        requests.onNext(io.kafkapixy.stream.v1.ProduceRequest.newBuilder().setId(7).setTopic(topic)
                .setMessage(ByteString.copyFromUtf8(value)).build());
        requests.onCompleted();
        return answer.get(30, TimeUnit.SECONDS);
    }

    /**
     * The refusal races the request's message: the interceptor closes the call while the message may still be on
     * its way. With raw frames, the message is sent strictly after the refusal arrived, and, in the other call, in
     * the same write as the headers, as clients send it: the refusal must be the call's own status, and the
     * connection must go on serving. (Helidon's server closed the connection with GOAWAY here, every time; a
     * grpc-java client then saw INTERNAL.)
     */
    @Test
    void aRefusedCallGetsItsOwnStatusWhetherItsMessageComesBeforeOrAfterTheRefusal() {
        long before = end();
        byte[] message = RawHttp2.grpcMessage(false, request("raced").toByteArray());
        try (RawHttp2 h2 = RawHttp2.connect(pixy.app().server().grpcPort().orElseThrow())) {
            int afterRefusal = h2.newStream();
            h2.headers(afterRefusal, h2.grpcHeaders("/KafkaPixy/Produce"), false);
            RawHttp2.Answer refusedFirst = h2.await(afterRefusal, java.time.Duration.ofSeconds(5));
            h2.data(afterRefusal, message, true); // the message arrives after the call was closed

            RawHttp2.Answer messageFirst = h2.call("/KafkaPixy/Produce", message, java.time.Duration.ofSeconds(5),
                    "authorization", "Bearer wrong");
            RawHttp2.Answer allowed = h2.call("/KafkaPixy/Produce", message, java.time.Duration.ofSeconds(30),
                    "authorization", "Bearer first-token");

            for (RawHttp2.Answer refused : java.util.List.of(refusedFirst, messageFirst)) {
                assertEquals(Status.Code.UNAUTHENTICATED.value(), refused.grpcStatus(), refused.toString());
                assertEquals("unauthenticated", refused.grpcMessage());
            }
            assertEquals(0, allowed.grpcStatus(), "the connection still serves: " + allowed);
        }
        assertEquals(before + 1, end(), "only the allowed call wrote");
    }

    @Test
    void tokensAreComparedAsWholeValues() {
        BearerTokens tokens = BearerTokens.load("", "TOKENS", name -> "alpha, beta\tgamma");
        assertEquals(3, tokens.size());
        assertFalse(tokens.accepts("Bearer alph"));
        assertFalse(tokens.accepts("Bearer alphaa"));
        assertFalse(tokens.accepts("Bearer "));
        assertFalse(tokens.accepts("alpha"));
        assertFalse(tokens.accepts(null));
        org.junit.jupiter.api.Assertions.assertTrue(tokens.accepts("Bearer gamma"));
    }

    @Test
    void aTokenSourceWithoutTokensStopsTheStartInsteadOfLeavingTheApisOpen() throws Exception {
        Path empty = dir.resolve("empty-tokens");
        Files.writeString(empty, "# nothing yet\n");
        var e = assertThrows(IllegalArgumentException.class, () -> BearerTokens.load(empty.toString(), "", n -> null));
        assertEquals("auth: no bearer token found in auth.bearer_tokens_file", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> BearerTokens.load("", "PIXY_TOKENS", n -> null));
        assertEquals("auth.bearer_tokens_env: environment variable PIXY_TOKENS is not set", e.getMessage());
    }

    private static long end() {
        return kafka.endOffsets(topic, 1).get(0);
    }

    private static HttpResponse<String> produce(String authorization, String value) {
        HttpRequest.Builder rq = HttpRequest.newBuilder(pixy.uri("/topics/" + topic + "/messages?sync"))
                .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString(value));
        if (authorization != null) {
            rq.header("Authorization", authorization);
        }
        return pixy.send(rq);
    }

    private static KafkaPixyGrpc.KafkaPixyBlockingStub grpc(String authorization) {
        KafkaPixyGrpc.KafkaPixyBlockingStub stub = pixy.grpc();
        if (authorization == null) {
            return stub;
        }
        return stub.withInterceptors(GrpcHeaders.header("authorization", authorization));
    }

    private static ProdRq request(String value) {
        return ProdRq.newBuilder().setTopic(topic).setMessage(ByteString.copyFromUtf8(value)).build();
    }
}
