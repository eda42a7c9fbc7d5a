package io.kafkapixy.security;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.grpc.StatusRuntimeException;
import io.kafkapixy.config.LimitsConfig;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.Scrape;
import io.kafkapixy.testing.TestKafka;
import mailgun.kafkapixy.ConsNAckRq;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code limits.max_parked_rest_requests}: of the requests parked in the instance, at most that many are REST's (each
 * holds its connection's thread and buffers while it waits); one more REST request gets 429 at once, naming the limit,
 * with its connection closed, while gRPC requests are still taken up to {@code limits.max_parked_requests}.
 */
class ParkedRestLimitTest {

    private static final int MAX_REST = 2;
    /**
     * Long enough for all three requests to be parked together while the parked gauge, which each member reports
     * about once a second, is read several times: the REST ones must still be waiting when the gRPC one comes.
     */
    private static final Duration LONG_POLL = Duration.ofSeconds(10);
    private static final String REFUSED = "Too many requests. 2 REST consume requests are already waiting in this "
                                          + "instance (limits.max_parked_rest_requests)";
    private static final ExecutorService THREADS = Executors.newVirtualThreadPerTaskExecutor();
    private static RunningPixy pixy;
    private static String topic;

    @BeforeAll
    static void start() {
        TestKafka kafka = TestKafka.get();
        topic = kafka.createTopic(TestKafka.uniqueTopic("rest-limit"), 1);
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_rest_limit",
                        new ConsumerSettingsBuilder().longPollingTimeout(LONG_POLL))
                .withLimits(LimitsConfig.DEFAULT.with(LimitsConfig.MAX_PARKED_REST_REQUESTS, MAX_REST)));
    }

    @AfterAll
    static void stop() {
        if (pixy != null) {
            pixy.close();
        }
    }

    @Test
    void oneRestRequestTooManyIsRefusedAndGrpcRequestsAreStillTaken() throws Exception {
        String group = TestKafka.uniqueTopic("rest-limited");
        List<CompletableFuture<HttpResponse<String>>> parked = new ArrayList<>();
        for (int i = 1; i <= MAX_REST; i++) {
            parked.add(CompletableFuture.supplyAsync(() -> poll(group), THREADS));
            int expected = i;
            TestKafka.Waits.until(Duration.ofSeconds(30), i + " parked", () -> parked(group) == expected);
        }

        HttpResponse<String> refused = poll(group);
        CompletableFuture<Optional<StatusRuntimeException>> grpc = CompletableFuture.supplyAsync(() -> {
            try {
                pixy.grpc().consumeNAck(ConsNAckRq.newBuilder().setTopic(topic).setGroup(group).setNoAck(true)
                        .build());
                return Optional.empty();
            } catch (StatusRuntimeException e) {
                return Optional.of(e);
            }
        }, THREADS);

        assertEquals(429, refused.statusCode());
        assertEquals(REFUSED, object(refused.body()).getString("error"));
        assertEquals(Optional.of("close"), refused.headers().firstValue("connection"));
        TestKafka.Waits.until(Duration.ofSeconds(30), "the gRPC request parked beside them",
                () -> parked(group) == MAX_REST + 1);
        for (CompletableFuture<HttpResponse<String>> f : parked) {
            assertEquals(408, f.get(60, TimeUnit.SECONDS).statusCode(), "the parked ones end as long polls do");
        }
        assertEquals("NOT_FOUND", grpc.get(60, TimeUnit.SECONDS).map(e -> e.getStatus().getCode().name())
                .orElse("a message"), "the gRPC one too");
        assertEquals(408, poll(group).statusCode(), "their places are back");
    }

    private static long parked(String group) {
        return (long) Scrape.parse(pixy.get("/metrics").body()).value("kafkapixy_consume_parked", "cluster",
                "default", "group", group, "topic", topic, "mode", "kafka");
    }

    private static HttpResponse<String> poll(String group) {
        return pixy.get("/topics/" + topic + "/messages?group=" + group);
    }
}
