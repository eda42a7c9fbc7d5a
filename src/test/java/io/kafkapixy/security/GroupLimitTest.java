package io.kafkapixy.security;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.kafkapixy.config.LimitsConfig;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.Scrape;
import io.kafkapixy.testing.TestKafka;
import mailgun.kafkapixy.ConsNAckRq;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code limits.max_groups}: an instance serves at most that many consumer groups at once (each a Kafka consumer with
 * its threads and buffers); a request that would make one more gets 429 / RESOURCE_EXHAUSTED at once, naming the
 * limit, and joins nothing in Kafka. Requests of the groups already served are taken, and a place comes back when a
 * group leaves.
 */
class GroupLimitTest {

    private static final int MAX_GROUPS = 2;
    private static final String REFUSED =
            "Too many requests. 2 consumer groups are already served by this instance (limits.max_groups)";
    private static final ExecutorService THREADS = Executors.newVirtualThreadPerTaskExecutor();
    private static TestKafka kafka;
    private static RunningPixy pixy;
    private static String topic;

    @BeforeAll
    static void start() {
        kafka = TestKafka.get();
        topic = kafka.createTopic(TestKafka.uniqueTopic("group-limit"), 1);
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_group_limit",
                        new ConsumerSettingsBuilder().longPollingTimeout(Duration.ofSeconds(3))
                                .subscriptionTimeout(Duration.ofSeconds(1)))
                .withLimits(LimitsConfig.DEFAULT.with(LimitsConfig.MAX_GROUPS, MAX_GROUPS)));
    }

    @AfterAll
    static void stop() {
        if (pixy != null) {
            pixy.close();
        }
    }

    @Test
    void aRequestThatWouldMakeOneGroupTooManyIsRefusedAndTheOthersAreServed() throws Exception {
        String a = TestKafka.uniqueTopic("limited-a");
        String b = TestKafka.uniqueTopic("limited-b");
        List<CompletableFuture<HttpResponse<String>>> parked = new ArrayList<>();
        for (String group : List.of(a, b)) {
            parked.add(CompletableFuture.supplyAsync(() -> poll(group), THREADS));
            TestKafka.Waits.until(Duration.ofSeconds(30), group + " parked", () -> Scrape.parse(
                    pixy.get("/metrics").body()).value("kafkapixy_consume_parked", "cluster", "default", "group",
                    group, "topic", topic, "mode", "kafka") == 1);
        }

        String third = TestKafka.uniqueTopic("limited-c");
        HttpResponse<String> rest = pixy.get("/topics/" + topic + "/messages?group=" + third);
        StatusRuntimeException grpc = assertThrows(StatusRuntimeException.class, () -> pixy.grpc().consumeNAck(
                ConsNAckRq.newBuilder().setTopic(topic).setGroup(third).setNoAck(true).build()));
        HttpResponse<String> sameGroup = poll(a);

        assertEquals(429, rest.statusCode());
        assertEquals(REFUSED, object(rest.body()).getString("error"));
        assertEquals(java.util.Optional.of("close"), rest.headers().firstValue("connection"),
                "a refused client holds no connection in a full instance");
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, grpc.getStatus().getCode());
        assertEquals(REFUSED, grpc.getStatus().getDescription());
        assertEquals(408, sameGroup.statusCode(), "a group already served takes more requests");
        for (CompletableFuture<HttpResponse<String>> f : parked) {
            assertEquals(408, f.get(60, TimeUnit.SECONDS).statusCode());
        }
        Set<String> groupsInKafka = kafka.admin().listConsumerGroups().all().get(30, TimeUnit.SECONDS).stream()
                .map(ConsumerGroupListing::groupId).collect(Collectors.toSet());
        assertFalse(groupsInKafka.contains(third), "the refused group joined nothing: " + groupsInKafka);

        // once the served groups' topics expire, they leave and their places come back
        TestKafka.Waits.until(Duration.ofSeconds(60), "a place for a new group", () -> poll(third).statusCode()
                                                                                      == 408);
    }

    private static HttpResponse<String> poll(String group) {
        return pixy.get("/topics/" + topic + "/messages?group=" + group);
    }
}
