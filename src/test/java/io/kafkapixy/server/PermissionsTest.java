package io.kafkapixy.server;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import com.google.protobuf.ByteString;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.kafkapixy.config.AuthConfig;
import io.kafkapixy.stream.v1.PixyStreamGrpc;
import io.kafkapixy.stream.v1.ProduceRequest;
import io.kafkapixy.stream.v1.ProduceResponse;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.Scrape;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonArray;
import mailgun.kafkapixy.ConsNAckRq;
import mailgun.kafkapixy.KafkaPixyGrpc;
import mailgun.kafkapixy.ProdRq;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.kafkapixy.testing.GrpcHeaders.bearer;
import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Named clients of {@code auth.clients_file} may do what their rules allow and nothing else, over REST, unary gRPC and
 * the streams, on the real broker: a refusal is 403 {@code {"error": "Forbidden"}} / PERMISSION_DENIED, decided before
 * anything is done (read back with a plain kafka-clients consumer and Admin client: no message written, no group
 * joined, no offset moved), counted by client and operation; listings show what the client may describe; a change of
 * the file applies while the proxy runs.
 */
class PermissionsTest {

    private final TestKafka kafka = TestKafka.get();
    private final String prefix = TestKafka.uniqueTopic("perm");
    private final String orders = prefix + ".orders";
    private final String payments = prefix + ".payments";
    private final String readers = prefix + "-readers";
    @TempDir
    Path dir;
    private Path clientsFile;
    private RunningPixy pixy;

    @BeforeEach
    void start() throws Exception {
        kafka.createTopic(orders, 1);
        kafka.createTopic(payments, 1);
        clientsFile = dir.resolve("clients.yaml");
        Files.writeString(clientsFile, clients(""));
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap())
                .withAuth(AuthConfig.NONE.with(AuthConfig.CLIENTS_FILE, clientsFile.toString())));
    }

    @AfterEach
    void stop() {
        if (pixy != null) {
            pixy.close();
        }
    }

    private String clients(String more) {
        return """
                clients:
                  - name: writer
                    tokens: [w-token]
                    allow:
                      - {operations: [write], topics: ["%1$s*"]}
                  - name: reader
                    tokens: [r-token]
                    allow:
                      - {operations: [read], topics: ["%1$s*"], groups: ["%2$s*"]}
                  - name: dashboard
                    tokens: [d-token]
                    allow:
                      - {operations: [describe], topics: ["*"], groups: ["*"]}
                  - name: offsets-admin
                    tokens: [a-token]
                    allow:
                      - {operations: [alter], topics: ["%1$s*"], groups: ["%2$s*"]}
                %3$s""".formatted(orders, readers, more);
    }

    @Test
    void aRestProduceIsWrittenForItsWriterAndRefusedToOthersBeforeAnythingIsWritten() {
        assertEquals(200, produce("w-token", orders).statusCode());
        assertEquals(200, send("w-token", HttpRequest.newBuilder(pixy.uri("/topics/" + orders + "/messages?sync&group="
                + readers + "-1")).header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("g")))
                .statusCode(), "a group parameter, which a produce does not take, asks nothing of the writer");
        HttpResponse<String> dashboard = produce("d-token", orders);
        HttpResponse<String> otherTopic = produce("w-token", payments);
        HttpResponse<String> unknown = produce("guess", orders);

        assertEquals(403, dashboard.statusCode());
        assertEquals("Forbidden", object(dashboard.body()).getString("error"));
        assertEquals(403, otherTopic.statusCode());
        assertEquals(401, unknown.statusCode());
        assertEquals(2L, kafka.endOffsets(orders, 1).get(0), "only the writer's messages");
        assertEquals(0L, kafka.endOffsets(payments, 1).get(0));
        assertTrue(Scrape.parse(send("d-token", HttpRequest.newBuilder(pixy.uri("/metrics")).GET()).body())
                .value("kafkapixy_auth_refusals_total", "client", "dashboard", "operation", "write") >= 1);
    }

    @Test
    void consumingNeedsReadOnTheTopicAndTheGroupAndARefusedGroupIsNeverJoined() throws Exception {
        String theirs = readers + "-1";
        String notTheirs = prefix + "-others";

        HttpResponse<String> allowed = send("r-token", HttpRequest.newBuilder(pixy.uri("/topics/" + orders
                + "/messages?group=" + theirs)).GET());
        HttpResponse<String> refused = send("r-token", HttpRequest.newBuilder(pixy.uri("/topics/" + orders
                + "/messages?group=" + notTheirs)).GET());
        HttpResponse<String> writer = send("w-token", HttpRequest.newBuilder(pixy.uri("/topics/" + orders
                + "/messages?group=" + theirs)).GET());

        assertEquals(408, allowed.statusCode(), "served: nothing to read yet");
        assertEquals(403, refused.statusCode());
        assertEquals(403, writer.statusCode(), "write does not allow reading");
        assertFalse(kafka.admin().listGroups().all().get(30, TimeUnit.SECONDS).stream()
                .anyMatch(g -> g.groupId().equals(notTheirs)), "the refused group was never joined");
    }

    @Test
    void settingOffsetsNeedsAlterAndARefusalMovesNothing() throws Exception {
        String group = readers + "-offsets";
        kafka.produce(orders, 0, null, "m0");
        kafka.commit(group, orders, 0, 0, "");

        HttpResponse<String> dashboard = send("d-token", HttpRequest.newBuilder(pixy.uri("/topics/" + orders
                + "/offsets?group=" + group)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("[{\"partition\": 0, \"offset\": 1}]")));
        HttpResponse<String> described = send("d-token", HttpRequest.newBuilder(pixy.uri("/topics/" + orders
                + "/offsets?group=" + group)).GET());

        assertEquals(403, dashboard.statusCode(), dashboard.body());
        assertEquals(0L, kafka.committed(group, orders).get(0).offset(), "the offset did not move");
        assertEquals(200, described.statusCode(), "describe reads offsets");
    }

    @Test
    void aGroupGivenInAFormBodyIsCheckedAsOneInTheQuery() throws Exception {
        String notTheirs = prefix + "-others";
        kafka.produce(orders, 0, null, "m0");
        kafka.commit(notTheirs, orders, 0, 0, "");

        HttpResponse<String> ack = send("r-token", form("/topics/" + orders + "/acks",
                "group=" + notTheirs + "&partition=0&offset=0"));
        HttpResponse<String> offsets = send("a-token", form("/topics/" + orders + "/offsets",
                "group=" + notTheirs));
        HttpResponse<String> ownOffsets = send("a-token", HttpRequest.newBuilder(pixy.uri("/topics/" + orders
                + "/offsets?group=" + readers + "-admin")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("[{\"partition\": 0, \"offset\": 1}]")));

        assertEquals(403, ack.statusCode(), ack.body());
        assertEquals(403, offsets.statusCode(), offsets.body());
        assertEquals(200, ownOffsets.statusCode(), ownOffsets.body());
        assertEquals(0L, kafka.committed(notTheirs, orders).get(0).offset(), "nothing settled or moved");
        assertEquals(1L, kafka.committed(readers + "-admin", orders).get(0).offset());
    }

    private HttpRequest.Builder form(String path, String body) {
        return HttpRequest.newBuilder(pixy.uri(path)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    @Test
    void aListingShowsOnlyWhatTheClientMayDescribe() {
        HttpResponse<String> writers = send("w-token", HttpRequest.newBuilder(pixy.uri("/topics")).GET());
        HttpResponse<String> dashboards = send("d-token", HttpRequest.newBuilder(pixy.uri("/topics")).GET());

        List<String> seenByWriter = object("{\"t\":" + writers.body() + "}").getJsonArray("t")
                .getValuesAs(jakarta.json.JsonString.class).stream().map(jakarta.json.JsonString::getString).toList();
        assertEquals(List.of(orders), seenByWriter.stream().filter(t -> t.startsWith(prefix)).toList());
        JsonArray all = object("{\"t\":" + dashboards.body() + "}").getJsonArray("t");
        assertTrue(all.toString().contains(payments), "describe on * lists every topic");
        assertTrue(seenByWriter.stream().noneMatch(t -> !t.startsWith(orders)), "write on a topic lists that one only");
    }

    @Test
    void grpcCallsAreRefusedPermissionDeniedBeforeAnythingIsDone() {
        KafkaPixyGrpc.KafkaPixyBlockingStub dashboard = stub("d-token");
        KafkaPixyGrpc.KafkaPixyBlockingStub writer = stub("w-token");

        StatusRuntimeException produce = assertThrows(StatusRuntimeException.class, () -> dashboard.produce(
                ProdRq.newBuilder().setTopic(orders).setMessage(ByteString.copyFromUtf8("x")).build()));
        StatusRuntimeException consume = assertThrows(StatusRuntimeException.class, () -> writer.consumeNAck(
                ConsNAckRq.newBuilder().setTopic(orders).setGroup(readers + "-g").setNoAck(true).build()));
        writer.produce(ProdRq.newBuilder().setTopic(orders).setMessage(ByteString.copyFromUtf8("ok")).build());

        assertEquals(Status.Code.PERMISSION_DENIED, produce.getStatus().getCode());
        assertEquals(Status.Code.PERMISSION_DENIED, consume.getStatus().getCode());
        assertEquals(1L, kafka.endOffsets(orders, 1).get(0), "only the writer's message");
    }

    @Test
    void theProduceStreamRefusesAMessageToAForbiddenTopicAlone() throws Exception {
        List<ProduceResponse> answers = new java.util.concurrent.CopyOnWriteArrayList<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        StreamObserver<ProduceRequest> requests = PixyStreamGrpc.newStub(pixy.channel())
                .withInterceptors(bearer("w-token")).withDeadlineAfter(60, TimeUnit.SECONDS)
                .produce(new StreamObserver<>() {
                    @Override
                    public void onNext(ProduceResponse rs) {
                        answers.add(rs);
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                        done.complete(null);
                    }
                });
        requests.onNext(ProduceRequest.newBuilder().setId(1).setTopic(payments).setKeyUndefined(true)
                .setMessage(ByteString.copyFromUtf8("no")).build());
        requests.onNext(ProduceRequest.newBuilder().setId(2).setTopic(orders).setKeyUndefined(true)
                .setMessage(ByteString.copyFromUtf8("yes")).build());
        TestKafka.Waits.until(Duration.ofSeconds(30), "both answered", () -> answers.size() == 2);
        requests.onCompleted();
        done.get(60, TimeUnit.SECONDS);

        ProduceResponse refused = answers.stream().filter(a -> a.getId() == 1).findFirst().orElseThrow();
        ProduceResponse written = answers.stream().filter(a -> a.getId() == 2).findFirst().orElseThrow();
        assertEquals(Status.Code.PERMISSION_DENIED.value(), refused.getCode());
        assertEquals(0, written.getCode(), written.getError());
        assertEquals(0L, kafka.endOffsets(payments, 1).get(0));
        assertEquals(1L, kafka.endOffsets(orders, 1).get(0));
    }

    @Test
    void aChangedClientsFileAppliesWhileTheProxyRunsAndABrokenOneKeepsTheLastGood() throws Exception {
        // over REST and over one gRPC connection, which remembers its last token until the file changes
        assertEquals(401, produce("new-token", orders).statusCode());
        assertEquals(Status.Code.UNAUTHENTICATED, grpcProduce("new-token"));

        Files.writeString(clientsFile, clients("""
                  - name: newcomer
                    tokens: [new-token]
                    allow:
                      - {operations: [write], topics: ["%s"]}
                """.formatted(orders)));
        TestKafka.Waits.until(Duration.ofSeconds(30), "the newcomer let in",
                () -> produce("new-token", orders).statusCode() == 200 && grpcProduce("new-token") == Status.Code.OK);

        Files.writeString(clientsFile, "clients: [{name: broken, tokens: [x], allow: [{operations: [wirte]}]}]\n");
        TestKafka.Waits.holdsFor(Duration.ofSeconds(5), "the last good file kept",
                () -> produce("new-token", orders).statusCode() == 200 && grpcProduce("new-token") == Status.Code.OK);

        Files.writeString(clientsFile, clients(""));
        TestKafka.Waits.until(Duration.ofSeconds(30), "the newcomer shut out",
                () -> produce("new-token", orders).statusCode() == 401
                      && grpcProduce("new-token") == Status.Code.UNAUTHENTICATED);
    }

    @Test
    void aConsumeStreamForAGroupOrTopicTheClientMayNotReadEndsPermissionDenied() throws Exception {
        io.grpc.Channel authed = io.grpc.ClientInterceptors.intercept(pixy.channel(), bearer("w-token"));
        CompletableFuture<Status> end = new CompletableFuture<>();
        StreamObserver<io.kafkapixy.stream.v1.ConsumeRequest> requests = PixyStreamGrpc.newStub(authed)
                .withDeadlineAfter(60, TimeUnit.SECONDS).consume(new StreamObserver<>() {
                    @Override
                    public void onNext(io.kafkapixy.stream.v1.ConsumeResponse rs) {
                    }

                    @Override
                    public void onError(Throwable t) {
                        end.complete(Status.fromThrowable(t));
                    }

                    @Override
                    public void onCompleted() {
                        end.complete(Status.OK);
                    }
                });
        requests.onNext(io.kafkapixy.stream.v1.ConsumeRequest.newBuilder().setGroup(readers + "-s").addTopics(orders)
                .setCredits(10).build());

        assertEquals(Status.Code.PERMISSION_DENIED, end.get(60, TimeUnit.SECONDS).getCode());
        assertFalse(kafka.admin().listGroups().all().get(30, TimeUnit.SECONDS).stream()
                .anyMatch(g -> g.groupId().equals(readers + "-s")), "the group was never joined");
    }

    @Test
    void aJwtOfTheIdentityProviderActsAsTheClientNamingItsSubject() throws Exception {
        RSAKey key = new RSAKeyGenerator(2048).keyID("idp-1").generate();
        Path jwks = Files.writeString(dir.resolve("jwks.json"), new JWKSet(key.toPublicJWK()).toString());
        restartWithJwtWriter(AuthConfig.JWKS_PATH, jwks.toString());

        assertEquals(200, produce(jwt(key, "svc-orders", "kafka-pixy"), orders).statusCode());
        assertEquals(403, produce(jwt(key, "svc-unknown", "kafka-pixy"), orders).statusCode(), "known, no permission");
        assertEquals(401, produce(jwt(key, "svc-orders", "billing"), orders).statusCode(), "another audience");
        StatusRuntimeException grpc = assertThrows(StatusRuntimeException.class, () -> stub(jwt(key, "svc-orders",
                "kafka-pixy")).produce(ProdRq.newBuilder().setTopic(payments).setMessage(ByteString.copyFromUtf8("x"))
                .build()));
        assertEquals(Status.Code.PERMISSION_DENIED, grpc.getStatus().getCode());
        assertEquals(1L, kafka.endOffsets(orders, 1).get(0));
        assertEquals(0L, kafka.endOffsets(payments, 1).get(0));

        // a gRPC connection remembers a JWT it checked, for 30 s at most: a key taken out of the JWKS stops the JWT
        // at once on a new connection, and on that one only later
        String token = jwt(key, "svc-orders", "kafka-pixy");
        assertEquals(Status.Code.OK, grpcProduce(token));
        long checked = System.nanoTime();
        Files.writeString(jwks, new JWKSet().toString());
        TestKafka.Waits.until(Duration.ofSeconds(20), "the JWT refused on a new connection", () -> {
            io.grpc.ManagedChannel fresh = io.grpc.ManagedChannelBuilder.forAddress("127.0.0.1",
                    pixy.app().server().grpcPort().orElseThrow()).usePlaintext().build();
            try {
                return grpcProduce(KafkaPixyGrpc.newBlockingStub(fresh), token) == Status.Code.UNAUTHENTICATED;
            } finally {
                fresh.shutdownNow();
            }
        });
        assertTrue(System.nanoTime() - checked < TimeUnit.SECONDS.toNanos(25), "the reload came too late to tell");
        assertEquals(Status.Code.OK, grpcProduce(token), "remembered on the connection that checked it");
    }

    @Test
    void aJwtSignedByAKeyOfTheProvidersJwksUrlIsCheckedAndARotatedKeyIsFetched() throws Exception {
        RSAKey first = new RSAKeyGenerator(2048).keyID("idp-a").generate();
        RSAKey rotated = new RSAKeyGenerator(2048).keyID("idp-b").generate();
        RSAKey foreign = new RSAKeyGenerator(2048).keyID("idp-a").generate();
        AtomicReference<JWKSet> published = new AtomicReference<>(new JWKSet(first.toPublicJWK()));
        HttpServer idp = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        idp.createContext("/jwks", exchange -> {
            byte[] body = published.get().toString().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        idp.start();
        try {
            restartWithJwtWriter(AuthConfig.JWKS_URL, "http://127.0.0.1:" + idp.getAddress().getPort() + "/jwks");

            assertEquals(200, produce(jwt(first, "svc-orders", "kafka-pixy"), orders).statusCode());
            assertEquals(401, produce(jwt(foreign, "svc-orders", "kafka-pixy"), orders).statusCode(),
                    "a known kid, signed by another key");
            published.set(new JWKSet(List.of(first.toPublicJWK(), rotated.toPublicJWK())));
            assertEquals(200, produce(jwt(rotated, "svc-orders", "kafka-pixy"), orders).statusCode(),
                    "the provider's new key, fetched for its unknown kid");
            StatusRuntimeException grpc = assertThrows(StatusRuntimeException.class, () -> stub(jwt(rotated,
                    "svc-orders", "kafka-pixy")).produce(ProdRq.newBuilder().setTopic(payments)
                    .setMessage(ByteString.copyFromUtf8("x")).build()));
            assertEquals(Status.Code.PERMISSION_DENIED, grpc.getStatus().getCode());
            assertEquals(2L, kafka.endOffsets(orders, 1).get(0));
            assertEquals(0L, kafka.endOffsets(payments, 1).get(0));
        } finally {
            idp.stop(0);
        }
    }

    /**
     * The proxy started again with JWTs of {@code https://idp.test} for {@code kafka-pixy} checked against the keys
     * {@code keys} names, and a client {@code jwt-writer} (subject {@code svc-orders}) that may write orders.
     */
    private void restartWithJwtWriter(io.kafkapixy.config.ConfigKey<String> keys, String where) throws Exception {
        Files.writeString(clientsFile, clients("""
                  - name: jwt-writer
                    jwt_subjects: [svc-orders]
                    allow:
                      - {operations: [write], topics: ["%s"]}
                """.formatted(orders)));
        pixy.close();
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap()).withAuth(AuthConfig.NONE
                .with(AuthConfig.CLIENTS_FILE, clientsFile.toString()).with(keys, where)
                .with(AuthConfig.ISSUER, "https://idp.test").with(AuthConfig.AUDIENCE, "kafka-pixy")));
    }

    private static String jwt(RSAKey key, String subject, String audience) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(),
                new JWTClaimsSet.Builder().subject(subject).issuer("https://idp.test").audience(audience)
                        .expirationTime(new java.util.Date(System.currentTimeMillis() + 600_000)).build());
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    private HttpResponse<String> produce(String token, String topic) {
        return send(token, HttpRequest.newBuilder(pixy.uri("/topics/" + topic + "/messages?sync"))
                .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("m")));
    }

    private Status.Code grpcProduce(String token) {
        return grpcProduce(KafkaPixyGrpc.newBlockingStub(pixy.channel()), token);
    }

    private Status.Code grpcProduce(KafkaPixyGrpc.KafkaPixyBlockingStub stub, String token) {
        try {
            stub.withInterceptors(bearer(token)).withDeadlineAfter(60, TimeUnit.SECONDS)
                    .produce(ProdRq.newBuilder().setTopic(orders).setMessage(ByteString.copyFromUtf8("g")).build());
            return Status.Code.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        }
    }

    private HttpResponse<String> send(String token, HttpRequest.Builder rq) {
        return pixy.send(rq.header("Authorization", "Bearer " + token));
    }

    private KafkaPixyGrpc.KafkaPixyBlockingStub stub(String token) {
        return KafkaPixyGrpc.newBlockingStub(pixy.channel()).withInterceptors(bearer(token))
                .withDeadlineAfter(60, TimeUnit.SECONDS);
    }
}
