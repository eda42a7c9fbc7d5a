package io.kafkapixy.ops;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.StreamObserver;
import io.kafkapixy.embedded.EmbeddedKafka;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Liveness, readiness and the gRPC health and reflection services, as a probe and a grpc-java client see them.
 * Readiness is driven by a broker of this test's own, stopped and started again on the same port.
 */
class HealthTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void readinessFollowsTheBrokersAndTurnsFalseForGoodWhenDraining() throws Exception {
        int port = freePort();
        EmbeddedKafka broker = EmbeddedKafka.start(dir.resolve("broker"), port);
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(broker.bootstrapServers()))) {
            assertEquals(200, pixy.get("/health/live").statusCode());
            HttpResponse<String> ready = pixy.get("/health/ready");
            assertEquals(200, ready.statusCode(), ready.body());
            assertEquals("UP", object(ready.body()).getString("status"));
            assertEquals(ServingStatus.SERVING, grpcStatus(pixy, ""));
            assertEquals(ServingStatus.SERVING, grpcStatus(pixy, "KafkaPixy"));
            assertEquals(ServingStatus.SERVING, grpcStatus(pixy, "kafkapixy.stream.v1.PixyStream"));

            broker.close();
            TestKafka.Waits.until(WAIT, "not ready without a broker",
                    () -> pixy.get("/health/ready").statusCode() == 503);
            JsonObject down = check(pixy.get("/health/ready"), "kafka");
            assertEquals("DOWN", down.getString("status"));
            assertEquals("unreachable", down.getJsonObject("data").getString("default"));
            assertEquals(ServingStatus.NOT_SERVING, grpcStatus(pixy, ""));
            assertEquals(200, pixy.get("/health/live").statusCode());

            broker = EmbeddedKafka.start(dir.resolve("broker"), port);
            TestKafka.Waits.until(WAIT, "ready again once the broker is back",
                    () -> pixy.get("/health/ready").statusCode() == 200);
            assertEquals(ServingStatus.SERVING, grpcStatus(pixy, ""));

            pixy.app().readiness().drain();
            HttpResponse<String> draining = pixy.get("/health/ready");
            assertEquals(503, draining.statusCode());
            assertEquals("DOWN", check(draining, "draining").getString("status"));
            assertEquals(ServingStatus.NOT_SERVING, grpcStatus(pixy, "KafkaPixy"));
            assertEquals(200, pixy.get("/health/live").statusCode());
        } finally {
            broker.close();
        }
    }

    @Test
    void grpcHealthKnowsOnlyTheServerAndKafkaPixyAndWatchStreamsTheStatus() throws Exception {
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(TestKafka.get().bootstrap()))) {
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> grpcStatus(pixy, "Nope"));
            assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode());

            var watch = HealthGrpc.newBlockingStub(pixy.channel()).withDeadlineAfter(30, TimeUnit.SECONDS)
                    .watch(HealthCheckRequest.newBuilder().setService("").build());
            assertEquals(ServingStatus.SERVING, watch.next().getStatus());
            pixy.app().readiness().drain();
            assertEquals(ServingStatus.NOT_SERVING, watch.next().getStatus());
        }
    }

    @Test
    void reflectionDescribesTheServicesWithoutTheProtoFile() throws Exception {
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(TestKafka.get().bootstrap()))) {
            List<ServerReflectionResponse> answers = reflect(pixy, List.of(
                    ServerReflectionRequest.newBuilder().setListServices("").build(),
                    ServerReflectionRequest.newBuilder().setFileContainingSymbol("KafkaPixy").build()));

            Set<String> services = new TreeSet<>();
            answers.get(0).getListServicesResponse().getServiceList().forEach(s -> services.add(s.getName()));
            assertTrue(services.containsAll(Set.of("KafkaPixy", "kafkapixy.stream.v1.PixyStream",
                    "grpc.health.v1.Health")), services.toString());
            var file = com.google.protobuf.DescriptorProtos.FileDescriptorProto.parseFrom(
                    answers.get(1).getFileDescriptorResponse().getFileDescriptorProto(0));
            assertEquals("KafkaPixy", file.getService(0).getName());
            assertTrue(file.getService(0).getMethodList().stream().anyMatch(m -> m.getName().equals("ConsumeNAck")));
        }
    }

    private static List<ServerReflectionResponse> reflect(RunningPixy pixy, List<ServerReflectionRequest> requests)
            throws Exception {
        List<ServerReflectionResponse> answers = new ArrayList<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        StreamObserver<ServerReflectionRequest> out = ServerReflectionGrpc.newStub(pixy.channel())
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .serverReflectionInfo(new StreamObserver<>() {
                    @Override
                    public void onNext(ServerReflectionResponse value) {
                        synchronized (answers) {
                            answers.add(value);
                        }
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
        requests.forEach(out::onNext);
        out.onCompleted();
        done.get(30, TimeUnit.SECONDS);
        assertEquals(requests.size(), answers.size());
        assertFalse(answers.stream().anyMatch(ServerReflectionResponse::hasErrorResponse), answers.toString());
        return answers;
    }

    private static ServingStatus grpcStatus(RunningPixy pixy, String service) {
        return HealthGrpc.newBlockingStub(pixy.channel()).withDeadlineAfter(30, TimeUnit.SECONDS)
                .check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus();
    }

    private static JsonObject check(HttpResponse<String> rs, String name) {
        return object(rs.body()).getJsonArray("checks").getValuesAs(JsonObject.class).stream()
                .filter(c -> c.getString("name").equals(name)).findFirst().orElseThrow();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
