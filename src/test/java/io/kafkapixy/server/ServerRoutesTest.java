package io.kafkapixy.server;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import mailgun.kafkapixy.ProdRq;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.error;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sockets, the original's REST routing rules and the shutting-down answers of both APIs. */
class ServerRoutesTest {

    @Test
    void pingAnswersPongAndUnknownRoutesAndMethodsGetGosAnswers() {
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(TestKafka.get().bootstrap()))) {
            HttpResponse<String> ping = pixy.get("/_ping");
            assertEquals(200, ping.statusCode());
            assertEquals("pong", ping.body());

            HttpResponse<String> unknown = pixy.get("/nothing/here");
            assertEquals(404, unknown.statusCode());
            assertEquals("404 page not found\n", unknown.body());
            assertEquals(404, pixy.post("/topics/", "text/plain", "x").statusCode());
            assertEquals(404, pixy.post("/topics/a/messages/", "text/plain", "x").statusCode());

            HttpResponse<String> wrongMethod = pixy.send(HttpRequest.newBuilder(pixy.uri("/topics/a/messages"))
                    .PUT(HttpRequest.BodyPublishers.ofString("x")));
            assertEquals(405, wrongMethod.statusCode());
            assertEquals("", wrongMethod.body());
            assertEquals(405, pixy.send(HttpRequest.newBuilder(pixy.uri("/clusters/c/topics/a/messages"))
                    .DELETE()).statusCode());
            assertEquals(405, pixy.post("/_ping", "text/plain", "").statusCode());
        }
    }

    @Test
    void aPathWithAnEmptyOrDotSegmentIsNotFoundBeforeAnyKafkaCall() throws Exception {
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(TestKafka.get().bootstrap()))) {
            java.util.Set<String> topicsBefore = TestKafka.get().admin().listTopics().names().get();
            for (String request : java.util.List.of("POST /topics//messages?sync", "GET /topics//messages?group=g",
                    "GET /topics//offsets?group=g", "POST /topics//offsets?group=g", "GET /topics//consumers",
                    "POST /topics//acks?group=g&partition=0&offset=0", "GET /clusters//topics",
                    "POST /clusters//topics/foo/messages?sync", "GET /clusters/default/topics//messages?group=g",
                    "GET /topics/./offsets?group=g", "GET /topics/%2E%2E/offsets?group=g")) {
                String rs = io.kafkapixy.testing.RawHttp.exchange(pixy.restPort(), request + " HTTP/1.1\r\n"
                        + "Host: x\r\nContent-Type: text/plain\r\nContent-Length: 1\r\nConnection: close\r\n\r\nv");

                assertEquals(404, io.kafkapixy.testing.RawHttp.status(rs), request + " -> " + rs);
                assertEquals("404 page not found\n", io.kafkapixy.testing.RawHttp.body(rs), request);
            }
            assertEquals(topicsBefore, TestKafka.get().admin().listTopics().names().get(), "no topic was created");
            assertEquals("pong", pixy.get("/_ping").body());
        }
    }

    @Test
    void anEmptyAddressLeavesThatApiOut() {
        PixyConfig base = RunningPixy.config(TestKafka.get().bootstrap());
        PixyConfig grpcOnly = base.with(PixyConfig.GRPC_ADDR, "127.0.0.1:0").with(PixyConfig.TCP_ADDR, "");
        try (RunningPixy pixy = RunningPixy.start(grpcOnly)) {
            assertTrue(pixy.app().server().restPort().isEmpty());
            String topic = TestKafka.get().createTopic(TestKafka.uniqueTopic("grpconly"), 1);
            assertEquals(0, pixy.grpc().produce(ProdRq.newBuilder().setTopic(topic)
                    .setMessage(ByteString.copyFromUtf8("x")).build()).getOffset());
        }
        PixyConfig restOnly = base.with(PixyConfig.GRPC_ADDR, "").with(PixyConfig.TCP_ADDR, "127.0.0.1:0");
        try (RunningPixy pixy = RunningPixy.start(restOnly)) {
            assertTrue(pixy.app().server().grpcPort().isEmpty());
            assertEquals("pong", pixy.get("/_ping").body());
        }
    }

    @Test
    void whileShuttingDownBothApisRefuseToProduce() {
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(Map.of("default", TestKafka.get().bootstrap())))) {
            pixy.app().proxies().close();

            HttpResponse<String> sync = pixy.post("/topics/t/messages?sync", "text/plain", "x");
            HttpResponse<String> async = pixy.post("/topics/t/messages", "text/plain", "x");
            StatusRuntimeException grpc = assertThrows(StatusRuntimeException.class, () -> pixy.grpc().produce(
                    ProdRq.newBuilder().setTopic("t").setMessage(ByteString.copyFromUtf8("x")).build()));

            assertEquals(503, sync.statusCode());
            assertEquals("service is shutting down", error(sync.body()));
            assertEquals(503, async.statusCode());
            assertEquals(Status.Code.UNAVAILABLE, grpc.getStatus().getCode());
            assertEquals("service is shutting down", grpc.getStatus().getDescription());
        }
    }
}
