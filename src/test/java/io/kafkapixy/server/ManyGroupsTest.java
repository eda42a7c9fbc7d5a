package io.kafkapixy.server;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.grpc.Status;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonObject;
import mailgun.kafkapixy.ConsNAckRq;
import mailgun.kafkapixy.ConsRs;
import mailgun.kafkapixy.KafkaPixyGrpc;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many groups joining one instance at once, as after a restart: every long poll is answered {@code long polling
 * timeout} no earlier than {@code long_polling_timeout} after it was sent, over both APIs, while the groups are being
 * created and joining; and once they have joined, a message produced while each group has a poll waiting reaches every
 * group, whose commit past it Kafka then holds.
 */
class ManyGroupsTest {

    private static final int GROUPS = 30;
    private static final int POLLS_PER_GROUP = 5;
    private static final Duration LONG_POLL = Duration.ofSeconds(3);
    /** How late an answer may come on a shared, noisy machine before the test calls it lost. */
    private static final Duration AT_THE_LATEST = LONG_POLL.plusSeconds(20);
    private static TestKafka kafka;
    private static RunningPixy pixy;
    private static String topic;
    private static HttpClient http;

    @BeforeAll
    static void start() {
        kafka = TestKafka.get();
        topic = kafka.createTopic(TestKafka.uniqueTopic("many-groups"), 1);
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_many_groups",
                new ConsumerSettingsBuilder().longPollingTimeout(LONG_POLL)));
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterAll
    static void stop() {
        if (pixy != null) {
            pixy.close();
        }
        if (http != null) {
            http.shutdownNow();
        }
    }

    /** When a request was sent and what came back, as the client saw it. */
    private record Answer(long sentNanos, long answeredNanos, int status, String body) {

        Duration took() {
            return Duration.ofNanos(answeredNanos - sentNanos);
        }
    }

    @Test
    void groupsJoiningAtOnceAnswerEveryLongPollAtItsDeadlineAndThenGetWhatIsProduced() throws Exception {
        List<String> groups = new ArrayList<>();
        for (int g = 0; g < GROUPS; g++) {
            groups.add(TestKafka.uniqueTopic("joining"));
        }
        KafkaPixyGrpc.KafkaPixyStub grpc = KafkaPixyGrpc.newStub(pixy.channel());

        List<CompletableFuture<Answer>> polls = new ArrayList<>();
        for (int i = 0; i < POLLS_PER_GROUP; i++) {
            for (int g = 0; g < GROUPS; g++) {
                polls.add(g % 2 == 0 ? rest(groups.get(g), "noAck") : grpc(grpc, groups.get(g), false));
            }
        }

        int timedOut = 0;
        for (CompletableFuture<Answer> poll : polls) {
            Answer a = poll.get(AT_THE_LATEST.toSeconds() + 30, TimeUnit.SECONDS);
            assertEquals(408, a.status, a.body);
            assertTrue(a.took().compareTo(LONG_POLL) >= 0, "not before the deadline: " + a.took());
            assertTrue(a.took().compareTo(AT_THE_LATEST) <= 0, "answered at its deadline: " + a.took());
            timedOut++;
        }
        assertEquals(GROUPS * POLLS_PER_GROUP, timedOut);

        // every group has joined by now (a group with no commit starts at the head as of its first request)
        List<CompletableFuture<Answer>> takes = new ArrayList<>();
        for (int g = 0; g < GROUPS; g++) {
            takes.add(g % 2 == 0 ? rest(groups.get(g), null) : grpc(grpc, groups.get(g), true));
        }
        long offset = kafka.produce(topic, 0, null, "for every group");
        for (CompletableFuture<Answer> take : takes) {
            Answer a = take.get(60, TimeUnit.SECONDS);
            assertEquals(200, a.status, a.body);
            assertEquals(offset + ":for every group", a.body);
        }
        for (String group : groups) {
            TestKafka.Waits.until(Duration.ofSeconds(30), group + " committed past the message", () -> {
                Map<Integer, OffsetAndMetadata> committed = kafka.committed(group, topic);
                return committed.get(0) != null && committed.get(0).offset() == offset + 1;
            });
        }
    }

    /** A REST consume; {@code flag} is {@code noAck} or null (auto-ack). Body of a message: "offset:value". */
    private static CompletableFuture<Answer> rest(String group, String flag) {
        long sent = System.nanoTime();
        HttpRequest rq = HttpRequest.newBuilder(pixy.uri("/topics/" + topic + "/messages?group=" + group
                                                         + (flag == null ? "" : "&" + flag)))
                .timeout(AT_THE_LATEST.plusSeconds(30)).GET().build();
        return http.sendAsync(rq, HttpResponse.BodyHandlers.ofString()).thenApply(rs -> {
            long answered = System.nanoTime();
            String body = rs.body();
            if (rs.statusCode() == 200) {
                JsonObject m = object(body);
                body = m.getJsonNumber("offset").longValue() + ":" + new String(java.util.Base64.getDecoder()
                        .decode(m.getString("value")), java.nio.charset.StandardCharsets.UTF_8);
            }
            return new Answer(sent, answered, rs.statusCode(), body);
        });
    }

    /** A gRPC ConsumeNAck, its status mapped as the REST API maps it (NOT_FOUND long polling timeout: 408). */
    private static CompletableFuture<Answer> grpc(KafkaPixyGrpc.KafkaPixyStub stub, String group, boolean autoAck) {
        long sent = System.nanoTime();
        CompletableFuture<Answer> answer = new CompletableFuture<>();
        ConsNAckRq.Builder rq = ConsNAckRq.newBuilder().setTopic(topic).setGroup(group);
        if (autoAck) {
            rq.setAutoAck(true);
        } else {
            rq.setNoAck(true);
        }
        stub.withDeadlineAfter(AT_THE_LATEST.plusSeconds(30).toMillis(), TimeUnit.MILLISECONDS)
                .consumeNAck(rq.build(), new io.grpc.stub.StreamObserver<>() {
                    @Override
                    public void onNext(ConsRs rs) {
                        answer.complete(new Answer(sent, System.nanoTime(), 200,
                                rs.getOffset() + ":" + rs.getMessage().toStringUtf8()));
                    }

                    @Override
                    public void onError(Throwable t) {
                        Status s = Status.fromThrowable(t);
                        boolean longPoll = s.getCode() == Status.Code.NOT_FOUND
                                           && "long polling timeout".equals(s.getDescription());
                        answer.complete(new Answer(sent, System.nanoTime(), longPoll ? 408 : 500, s.toString()));
                    }

                    @Override
                    public void onCompleted() {
                    }
                });
        return answer;
    }
}
