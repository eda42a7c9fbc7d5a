package io.kafkapixy.security;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.ByteString;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.kafkapixy.config.LimitsConfig;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RawHttp;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.Scrape;
import io.kafkapixy.testing.TestKafka;
import mailgun.kafkapixy.ConsNAckRq;
import mailgun.kafkapixy.ProdRq;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code limits}: what one client can make an instance hold. Parked consume requests are bounded over the whole
 * instance (429 / RESOURCE_EXHAUSTED beyond), request headers are bounded on both APIs, the gRPC request size limit
 * is configurable; nothing refused is written, and the server keeps serving.
 */
class LimitsTest {

    private static final int MAX_PARKED = 3;
    private static final int GRPC_MAX = 4096;
    private static final int MAX_HEADERS = 4096;
    private static final java.util.concurrent.ExecutorService THREADS =
            java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();
    private static TestKafka kafka;
    private static RunningPixy pixy;
    private static String topic;

    @BeforeAll
    static void start() {
        kafka = TestKafka.get();
        topic = kafka.createTopic(TestKafka.uniqueTopic("limits"), 1);
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_limits",
                        new ConsumerSettingsBuilder().longPollingTimeout(Duration.ofSeconds(4)))
                .withLimits(LimitsConfig.DEFAULT.with(LimitsConfig.GRPC_MAX_REQUEST_BYTES, GRPC_MAX)
                        .with(LimitsConfig.MAX_HEADER_BYTES, MAX_HEADERS)
                        .with(LimitsConfig.MAX_PARKED_REQUESTS, MAX_PARKED)));
    }

    @AfterAll
    static void stop() {
        if (pixy != null) {
            pixy.close();
        }
    }

    @Test
    void parkedConsumeRequestsAreBoundedOverTheWholeInstance() throws Exception {
        String idle = kafka.createTopic(TestKafka.uniqueTopic("limits-idle"), 1);
        List<CompletableFuture<HttpResponse<String>>> parked = new ArrayList<>();
        // spread over groups: the per-group-topic bound (channel_buffer_size) is not what refuses them
        for (int i = 0; i < MAX_PARKED; i++) {
            String group = "parked-" + i;
            parked.add(CompletableFuture.supplyAsync(
                    () -> pixy.get("/topics/" + idle + "/messages?group=" + group), THREADS));
            TestKafka.Waits.until(Duration.ofSeconds(30), group + " parked", () -> Scrape.parse(
                    pixy.get("/metrics").body()).value("kafkapixy_consume_parked", "cluster", "default", "group",
                    group, "topic", idle, "mode", "kafka") == 1);
        }

        HttpResponse<String> rest = pixy.get("/topics/" + idle + "/messages?group=another");
        StatusRuntimeException grpc = assertThrows(StatusRuntimeException.class, () -> pixy.grpc().consumeNAck(
                ConsNAckRq.newBuilder().setTopic(idle).setGroup("grpc-group").setNoAck(true).build()));

        assertEquals(429, rest.statusCode());
        assertTrue(object(rest.body()).getString("error").contains("limits.max_parked_requests"), rest.body());
        assertEquals(java.util.Optional.of("close"), rest.headers().firstValue("connection"),
                "a refused client holds no connection in a full instance");
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, grpc.getStatus().getCode());
        for (CompletableFuture<HttpResponse<String>> f : parked) {
            assertEquals(408, f.get(60, TimeUnit.SECONDS).statusCode(), "the parked ones end as long polls do");
        }
        assertEquals(408, pixy.get("/topics/" + idle + "/messages?group=after").statusCode(),
                "slots come back when requests end");
    }

    @Test
    void grpcRequestsOverTheConfiguredSizeAreRefusedAndNotWritten() {
        long before = end();
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> pixy.grpc().produce(
                ProdRq.newBuilder().setTopic(topic).setMessage(ByteString.copyFrom(new byte[GRPC_MAX + 1])).build()));

        assertEquals(Status.Code.RESOURCE_EXHAUSTED, e.getStatus().getCode());
        pixy.grpc().produce(ProdRq.newBuilder().setTopic(topic).setMessage(ByteString.copyFromUtf8("small")).build());
        assertEquals(before + 1, end());
    }

    @Test
    void restHeadersOverTheLimitGet431AndTheConnectionsAfterAreServed() {
        long before = end();
        String big = "x".repeat(MAX_HEADERS);
        String rs = RawHttp.exchange(pixy.restPort(), "POST /topics/" + topic + "/messages?sync HTTP/1.1\r\n"
                + "Host: x\r\nContent-Type: text/plain\r\nX-Kafka-Big: " + big + "\r\nContent-Length: 1\r\n"
                + "Connection: close\r\n\r\nv");
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            many.append("X-Kafka-H").append(i).append(": v\r\n");
        }
        String manyRs = RawHttp.exchange(pixy.restPort(), "POST /topics/" + topic + "/messages?sync HTTP/1.1\r\n"
                + "Host: x\r\nContent-Type: text/plain\r\n" + many + "Content-Length: 1\r\nConnection: close\r\n\r\nv");

        assertEquals(431, RawHttp.status(rs), rs);
        assertEquals(431, RawHttp.status(manyRs), manyRs);
        assertEquals("request headers are larger than 4096 bytes (limits.max_header_bytes)",
                object(RawHttp.body(rs)).getString("error"));
        assertEquals(before, end());
        assertEquals(200, pixy.get("/_ping").statusCode());
    }

    @Test
    void grpcMetadataOverTheLimitIsRefusedAndNotWritten() {
        long before = end();
        Metadata headers = new Metadata();
        headers.put(Metadata.Key.of("x-big", Metadata.ASCII_STRING_MARSHALLER), "x".repeat(2 * MAX_HEADERS));

        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> pixy.grpc()
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
                .produce(ProdRq.newBuilder().setTopic(topic).setMessage(ByteString.copyFromUtf8("meta")).build()));

        assertTrue(e.getStatus().getCode() != Status.Code.OK, e.toString());
        assertEquals(before, end());
        pixy.grpc().produce(ProdRq.newBuilder().setTopic(topic).setMessage(ByteString.copyFromUtf8("ok")).build());
        assertEquals(before + 1, end());
    }

    private static long end() {
        return kafka.endOffsets(topic, 1).get(0);
    }
}
