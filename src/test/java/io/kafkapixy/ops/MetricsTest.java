package io.kafkapixy.ops;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import com.google.protobuf.ByteString;
import io.kafkapixy.testing.Background;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.Scrape;
import io.kafkapixy.testing.TestKafka;
import mailgun.kafkapixy.ProdRq;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code /metrics} follows the traffic: every figure is read from a scrape after real requests against a real
 * broker. Counters are compared with a scrape taken before, since the registry is the process's.
 */
class MetricsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final TestKafka kafka = TestKafka.get();
    private final String topic = TestKafka.uniqueTopic("metrics");
    private final String group = TestKafka.uniqueTopic("group");

    @Test
    void producedMessagesBytesLatencyAndApiRequestsAreCounted() {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap()))) {
            Scrape before = scrape(pixy);
            assertEquals(200, pixy.post("/topics/" + topic + "/messages?sync", "text/plain", "hello").statusCode());
            assertEquals(200, pixy.post("/topics/" + topic + "/messages?key=k", "text/plain", "abc").statusCode());
            pixy.grpc().produce(ProdRq.newBuilder().setTopic(topic).setMessage(ByteString.copyFromUtf8("12"))
                    .build());

            TestKafka.Waits.until(WAIT, "three messages counted",
                    () -> scrape(pixy).value("kafkapixy_produce_messages_total", produced()) == 3);
            Scrape after = scrape(pixy);
            assertEquals(5 + 1 + 3 + 2, after.value("kafkapixy_produce_bytes_total", produced()));
            assertEquals(3, after.value("kafkapixy_produce_latency_seconds_count", produced()));
            assertEquals(3, after.value("kafkapixy_produce_latency_seconds_bucket", with(produced(), "le", "+Inf")));
            assertTrue(after.value("kafkapixy_produce_latency_seconds_sum", produced()) > 0);
            assertTrue(after.has("kafkapixy_produce_async_pending", "cluster", "default"));
            assertEquals(0, after.value("kafkapixy_produce_async_pending", "cluster", "default"));
            assertEquals(2, delta(before, after, "kafkapixy_api_requests_total",
                    "api", "rest", "method", "POST /topics/{topic}/messages", "status", "200"));
            assertEquals(1, delta(before, after, "kafkapixy_api_requests_total",
                    "api", "grpc", "method", "Produce", "status", "OK"));
        }
    }

    @Test
    void failedProducesAreCountedByKind() throws Exception {
        kafka.admin().createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                .configs(Map.of("max.message.bytes", "200")))).all().get();
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap()))) {
            Scrape before = scrape(pixy);
            HttpResponse<String> rs = pixy.post("/topics/" + topic + "/messages?sync", "text/plain", incompressible());
            assertEquals(500, rs.statusCode(), rs.body());

            Scrape after = scrape(pixy);
            assertEquals(1, after.value("kafkapixy_produce_errors_total",
                    "cluster", "default", "topic", topic, "kind", "internal"));
            assertEquals(0, after.value("kafkapixy_produce_messages_total", produced()));
            assertEquals(1, delta(before, after, "kafkapixy_api_requests_total",
                    "api", "rest", "method", "POST /topics/{topic}/messages", "status", "500"));
        }
    }

    @Test
    void consumeOutcomesAcksRedeliveriesDropsAndGaugesFollowTheGroup() throws Exception {
        kafka.createTopic(topic, 1);
        var settings = ConsumerSettingsBuilder.fast().ackTimeout(Duration.ofSeconds(1)).maxRetries(1)
                .channelBufferSize(1);
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_" + group, settings))) {
            assertEquals(408, pixy.get(messages()).statusCode());
            assertEquals(1, scrape(pixy).value("kafkapixy_consume_requests_total",
                    with(groupTopic(), "outcome", "long_poll_timeout")));

            kafka.produce(topic, 0, null, "m0");
            kafka.produce(topic, 0, null, "m1");
            long first = offset(pixy.get(messages() + "&noAck"));
            long second = offset(pixy.get(messages() + "&noAck"));
            assertEquals(2, scrape(pixy).value("kafkapixy_consume_requests_total",
                    with(groupTopic(), "outcome", "message")));
            TestKafka.Waits.until(WAIT, "two unacked messages and a lag of two", () -> {
                Scrape s = scrape(pixy);
                return s.value("kafkapixy_consume_unacked", groupTopic()) == 2
                       && s.value("kafkapixy_consume_lag", groupTopic()) == 2;
            });
            assertTrue(scrape(pixy).value("kafkapixy_consume_rebalances_total", "cluster", "default",
                    "group", group) >= 1);

            assertEquals(200, pixy.post("/topics/" + topic + "/acks?group=" + group + "&partition=0&offset=" + first,
                    "text/plain", "").statusCode());
            assertEquals(1, scrape(pixy).value("kafkapixy_consume_acks_total", groupTopic()));
            TestKafka.Waits.until(WAIT, "the lag down to one once the ack is in",
                    () -> scrape(pixy).value("kafkapixy_consume_lag", groupTopic()) == 1);

            assertEquals(second, offset(pixy.get(messages() + "&noAck")));
            assertEquals(1, scrape(pixy).value("kafkapixy_consume_redeliveries_total", groupTopic()));
            assertEquals(2, scrape(pixy).value("kafkapixy_consume_redelivery_attempts_sum", groupTopic()),
                    "its second delivery");
            TestKafka.Waits.until(WAIT, "the message dropped after max_retries",
                    () -> scrape(pixy).value("kafkapixy_consume_dropped_total", groupTopic()) == 1);

            CompletableFuture<HttpResponse<String>> parked1 = park(pixy);
            CompletableFuture<HttpResponse<String>> parked2 = park(pixy);
            TestKafka.Waits.until(WAIT, "two requests parked",
                    () -> scrape(pixy).value("kafkapixy_consume_parked", groupTopic()) == 2);
            assertEquals(429, pixy.get(messages()).statusCode());
            assertEquals(1, scrape(pixy).value("kafkapixy_consume_requests_total",
                    with(groupTopic(), "outcome", "too_many_requests")));
            assertEquals(408, parked1.get().statusCode());
            assertEquals(408, parked2.get().statusCode());
            assertEquals(3, scrape(pixy).value("kafkapixy_consume_requests_total",
                    with(groupTopic(), "outcome", "long_poll_timeout")));
        }
    }

    @Test
    void aRejectedMessageIsAckedAndCountedApart() {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_" + group,
                ConsumerSettingsBuilder.fast()))) {
            assertEquals(408, pixy.get(messages()).statusCode());
            kafka.produce(topic, 0, null, "poison");
            long offset = offset(pixy.get(messages() + "&noAck"));

            HttpResponse<String> rs = pixy.post("/topics/" + topic + "/rejects?group=" + group
                    + "&partition=0&offset=" + offset, "text/plain", "");

            assertEquals(200, rs.statusCode(), rs.body());
            assertEquals(1, scrape(pixy).value("kafkapixy_consume_rejects_total", groupTopic()));
            assertEquals(1, scrape(pixy).value("kafkapixy_consume_acks_total", groupTopic()),
                    "in the classic modes a reject is an ack");
            TestKafka.Waits.until(WAIT, "committed past it, as an ack is",
                    () -> kafka.committed(group, topic).get(0) != null
                          && kafka.committed(group, topic).get(0).offset() == offset + 1);
        }
    }

    @Test
    void aGroupTopicsMetersGoWhenItsSubscriptionExpires() {
        kafka.createTopic(topic, 1);
        var settings = ConsumerSettingsBuilder.fast().subscriptionTimeout(Duration.ofSeconds(1));
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_" + group, settings))) {
            assertEquals(408, pixy.get(messages()).statusCode());
            assertTrue(scrape(pixy).has("kafkapixy_consume_parked", groupTopic()));

            TestKafka.Waits.until(WAIT, "the group-topic's meters removed",
                    () -> !scrape(pixy).has("kafkapixy_consume_parked", groupTopic()));
            assertFalse(scrape(pixy).has("kafkapixy_consume_requests_total",
                    with(groupTopic(), "outcome", "long_poll_timeout")));
        }
    }

    @Test
    void jvmAndVirtualThreadMetersAreServedToo() {
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap()))) {
            HttpResponse<String> rs = pixy.get("/metrics");
            assertEquals(200, rs.statusCode());
            assertTrue(rs.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
            Scrape s = Scrape.parse(rs.body());
            assertTrue(s.has("memory_usedHeap_bytes"));
            assertTrue(s.has("thread_count"));
            assertTrue(s.value("kafkapixy_vthreads_parallelism") >= 1);
            assertTrue(s.value("kafkapixy_vthreads_mounted") >= 1, "this request's own thread is mounted");
            assertTrue(s.has("kafkapixy_vthreads_queued"));
        }
    }

    /** Larger than the topic's limit even if the producer compresses it. */
    private static String incompressible() {
        var random = new java.util.Random(7);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 4000; i++) {
            s.append((char) ('!' + random.nextInt(90)));
        }
        return s.toString();
    }

    private CompletableFuture<HttpResponse<String>> park(RunningPixy pixy) {
        return CompletableFuture.supplyAsync(() -> pixy.get(messages()), Background.THREADS);
    }

    @Test
    void whatAlertsCompareWithIsExported() {
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_" + group,
                ConsumerSettingsBuilder.fast().ackTimeout(Duration.ofMillis(1500)).maxRetries(4)))) {
            Scrape s = scrape(pixy);
            assertEquals(1.5, s.value("kafkapixy_consume_ack_timeout_seconds", "cluster", "default"));
            assertEquals(4, s.value("kafkapixy_consume_max_retries", "cluster", "default"));
            assertTrue(s.has("kafkapixy_ready"));
            // a probe slower than 2 s on a busy machine reads as unreachable until the next one
            TestKafka.Waits.until(WAIT, "ready and reachable", () -> scrape(pixy).value("kafkapixy_ready") == 1
                    && scrape(pixy).value("kafkapixy_cluster_reachable", "cluster", "default") == 1);
            pixy.app().readiness().drain();
            assertEquals(0, scrape(pixy).value("kafkapixy_ready"));
        }
    }

    private static Scrape scrape(RunningPixy pixy) {
        HttpResponse<String> rs = pixy.get("/metrics");
        assertEquals(200, rs.statusCode(), rs.body());
        return Scrape.parse(rs.body());
    }

    private static double delta(Scrape before, Scrape after, String name, String... labels) {
        return after.value(name, labels) - before.value(name, labels);
    }

    private static long offset(HttpResponse<String> rs) {
        assertEquals(200, rs.statusCode(), rs.body());
        return object(rs.body()).getJsonNumber("offset").longValue();
    }

    private String messages() {
        return "/topics/" + topic + "/messages?group=" + group;
    }

    private String[] produced() {
        return new String[] {"cluster", "default", "topic", topic};
    }

    private String[] groupTopic() {
        return new String[] {"cluster", "default", "group", group, "topic", topic, "mode", "kafka"};
    }

    private static String[] with(String[] labels, String key, String value) {
        String[] out = java.util.Arrays.copyOf(labels, labels.length + 2);
        out[labels.length] = key;
        out[labels.length + 1] = value;
        return out;
    }
}
