package io.kafkapixy.server;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.kafkapixy.config.AuthConfig;
import io.kafkapixy.server.GroupKindContractTest.Kind;
import io.kafkapixy.stream.v1.ConsumeRequest;
import io.kafkapixy.stream.v1.ConsumeResponse;
import io.kafkapixy.stream.v1.PixyStreamGrpc;
import io.kafkapixy.stream.v1.RejectRequest;
import io.kafkapixy.stream.v1.RenewRequest;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonObject;
import mailgun.kafkapixy.AckRq;
import mailgun.kafkapixy.ConsNAckRq;
import mailgun.kafkapixy.ConsRs;
import mailgun.kafkapixy.GetOffsetsRq;
import mailgun.kafkapixy.KafkaPixyGrpc;
import mailgun.kafkapixy.ListConsumersRq;
import mailgun.kafkapixy.ListTopicRq;
import mailgun.kafkapixy.SetOffsetsRq;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.kafkapixy.testing.GrpcHeaders.bearer;
import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A group's messages and offsets are the business of the clients the clients file lets read or alter that group, in
 * both kinds of group (classic and share) on the real broker: an ack, reject or renewal by any other client is refused
 * 403 / PERMISSION_DENIED and takes nothing (the message is offered again, nothing reaches the dead-letter topic, the
 * group's offsets as a plain Admin client reads them do not move); offsets are read and set only with describe and
 * alter; listings of consumers and topics show only what the client may describe.
 */
class GroupPermissionsTest {

    private final TestKafka kafka = TestKafka.get();
    private final String prefix = TestKafka.uniqueTopic("gperm");
    private final String topic = prefix + ".jobs";
    private final String otherTopic = prefix + ".audit";
    private final String group = prefix + "-workers";
    private final String deadLetters = topic + ".dlt";
    @TempDir
    Path dir;
    private RunningPixy pixy;

    @AfterEach
    void stop() {
        if (pixy != null) {
            pixy.close();
        }
    }

    /**
     * {@code worker} reads the group; {@code stranger} reads the topic in groups of its own; {@code dashboard}
     * describes everything.
     */
    private void start(Kind kind) throws Exception {
        kafka.createTopic(topic, 1);
        kafka.createTopic(otherTopic, 1);
        kafka.createTopic(deadLetters, 1);
        kind.readFromTheOldest(kafka, group, topic);
        Path clients = Files.writeString(dir.resolve("clients.yaml"), """
                clients:
                  - name: worker
                    tokens: [worker-token]
                    allow:
                      - {operations: [read], topics: ["%1$s"], groups: ["%2$s"]}
                  - name: stranger
                    tokens: [stranger-token]
                    allow:
                      - {operations: [read], topics: ["%1$s"], groups: ["%3$s-own*"]}
                  - name: dashboard
                    tokens: [dashboard-token]
                    allow:
                      - {operations: [describe], topics: ["*"], groups: ["*"]}
                """.formatted(topic, group, prefix));
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "gperm-" + kind.name().toLowerCase(),
                        kind.settings().ackTimeout(Duration.ofSeconds(3)).longPollingTimeout(Duration.ofSeconds(10))
                                .deadLetterTopic("{topic}.dlt"))
                .withAuth(AuthConfig.NONE.with(AuthConfig.CLIENTS_FILE, clients.toString())));
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void overRestOnlyAReaderOfTheGroupSettlesItsMessageAndARefusalTakesNothing(Kind kind) throws Exception {
        start(kind);
        kafka.produce(topic, 0, null, "m0");
        JsonObject taken = take("worker-token");
        long offset = taken.getJsonNumber("offset").longValue();

        for (String token : List.of("stranger-token", "dashboard-token")) {
            for (String how : List.of("acks", "rejects", "renewals")) {
                HttpResponse<String> rs = settle(token, how, offset);
                assertEquals(403, rs.statusCode(), token + " " + how + ": " + rs.body());
                assertEquals("Forbidden", object(rs.body()).getString("error"));
            }
        }

        assertTrue(kind.settledUpTo(kafka, group, topic) <= offset, "the group's offsets did not move");
        assertEquals(0L, kafka.endOffsets(deadLetters, 1).get(0), "no refused reject reached the dead-letter topic");
        TestKafka.Waits.until(Duration.ofSeconds(30), "the group listed as the topic's consumer",
                () -> consumers("dashboard-token").containsKey(group));
        assertFalse(consumers("stranger-token").containsKey(group), "a group the client may not describe is left out");
        assertEquals(offset, take("worker-token").getJsonNumber("offset").longValue(),
                "offered again after its ack_timeout: neither acked nor rejected nor renewed by the refused calls");
        assertEquals(200, settle("worker-token", "acks", offset).statusCode());
        TestKafka.Waits.until(Duration.ofSeconds(30), "settled by its reader",
                () -> kind.settledUpTo(kafka, group, topic) == offset + 1);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aConsumeForAGroupTheClientMayNotReadIsRefusedAndTheGroupNeverJoined(Kind kind) throws Exception {
        start(kind);
        String notTheirs = prefix + "-elsewhere";

        HttpResponse<String> rest = send("stranger-token", HttpRequest.newBuilder(pixy.uri("/topics/" + topic
                + "/messages?group=" + notTheirs)).GET());
        StatusRuntimeException grpc = assertThrows(StatusRuntimeException.class, () -> stub("stranger-token")
                .consumeNAck(ConsNAckRq.newBuilder().setTopic(topic).setGroup(notTheirs).setNoAck(true).build()));
        CompletableFuture<Status> streamEnd = new CompletableFuture<>();
        PixyStreamGrpc.newStub(pixy.channel()).withInterceptors(bearer("stranger-token"))
                .withDeadlineAfter(60, TimeUnit.SECONDS).consume(new StreamObserver<>() {
                    @Override
                    public void onNext(ConsumeResponse rs) {
                    }

                    @Override
                    public void onError(Throwable t) {
                        streamEnd.complete(Status.fromThrowable(t));
                    }

                    @Override
                    public void onCompleted() {
                        streamEnd.complete(Status.OK);
                    }
                }).onNext(ConsumeRequest.newBuilder().setGroup(notTheirs).addTopics(topic).setCredits(10).build());

        assertEquals(403, rest.statusCode(), rest.body());
        assertEquals(Status.Code.PERMISSION_DENIED, grpc.getStatus().getCode());
        assertEquals(Status.Code.PERMISSION_DENIED, streamEnd.get(60, TimeUnit.SECONDS).getCode(), "consume stream");
        assertFalse(kafka.admin().listGroups().all().get(30, TimeUnit.SECONDS).stream()
                .anyMatch(g -> g.groupId().equals(notTheirs)), "the refused group was never joined, of any kind");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void overGrpcOffsetsAndListingsAreRefusedOrFilteredByWhatTheClientMayDescribeOrAlter(Kind kind) throws Exception {
        start(kind);
        kafka.produce(topic, 0, null, "m0");
        SetOffsetsRq toTheEnd = SetOffsetsRq.newBuilder().setTopic(topic).setGroup(group)
                .addOffsets(mailgun.kafkapixy.PartitionOffset.newBuilder().setPartition(0).setOffset(1)).build();

        assertDenied(() -> stub("dashboard-token").setOffsets(toTheEnd), "describe does not alter");
        assertDenied(() -> stub("worker-token").setOffsets(toTheEnd), "read does not alter");
        assertTrue(kind.settledUpTo(kafka, group, topic) < 1, "the group's offsets did not move");

        ConsRs taken = stub("worker-token").consumeNAck(ConsNAckRq.newBuilder().setTopic(topic).setGroup(group)
                .setNoAck(true).build());
        assertEquals(0, taken.getOffset(), "read from where the group was, not from the refused offset");

        GetOffsetsRq offsets = GetOffsetsRq.newBuilder().setTopic(topic).setGroup(group).build();
        assertDenied(() -> stub("stranger-token").getOffsets(offsets), "the stranger may not describe the group");
        assertEquals(1, stub("dashboard-token").getOffsets(offsets).getOffsetsCount());

        TestKafka.Waits.until(Duration.ofSeconds(30), "the group listed as the topic's consumer",
                () -> stub("dashboard-token").listConsumers(ListConsumersRq.newBuilder().setTopic(topic).build())
                        .containsGroups(group));
        assertFalse(stub("stranger-token").listConsumers(ListConsumersRq.newBuilder().setTopic(topic).build())
                .containsGroups(group), "a group the client may not describe is left out");
        assertDenied(() -> stub("stranger-token").listConsumers(ListConsumersRq.newBuilder().setTopic(topic)
                .setGroup(group).build()), "naming it is refused");

        Function<String, List<String>> topicsSeenBy = token -> stub(token).listTopics(ListTopicRq.getDefaultInstance())
                .getTopicsMap().keySet().stream().filter(t -> t.startsWith(prefix)).sorted().toList();
        assertEquals(List.of(topic), topicsSeenBy.apply("stranger-token"), "read on a topic describes that one");
        assertEquals(List.of(otherTopic, topic, deadLetters).stream().sorted().toList(),
                topicsSeenBy.apply("dashboard-token"));

        AckRq ack = AckRq.newBuilder().setTopic(topic).setGroup(group).setPartition(0).setOffset(0).build();
        assertDenied(() -> stub("stranger-token").ack(ack), "ack");
        assertDenied(() -> streams("stranger-token").reject(RejectRequest.newBuilder().setTopic(topic)
                .setGroup(group).setPartition(0).setOffset(0).build()), "reject");
        assertDenied(() -> streams("dashboard-token").renew(RenewRequest.newBuilder().setTopic(topic)
                .setGroup(group).setPartition(0).setOffset(0).build()), "renew");
        assertEquals(0L, kafka.endOffsets(deadLetters, 1).get(0), "no refused reject reached the dead-letter topic");
        stub("worker-token").ack(ack);
        TestKafka.Waits.until(Duration.ofSeconds(30), "settled by its reader",
                () -> kind.settledUpTo(kafka, group, topic) == 1);
    }

    private static void assertDenied(org.junit.jupiter.api.function.Executable call, String what) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call, what);
        assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode(), what);
    }

    private JsonObject take(String token) {
        HttpResponse<String> rs = send(token, HttpRequest.newBuilder(pixy.uri("/topics/" + topic + "/messages?group="
                + group + "&noAck")).GET());
        assertEquals(200, rs.statusCode(), rs.body());
        return object(rs.body());
    }

    private JsonObject consumers(String token) {
        HttpResponse<String> rs = send(token, HttpRequest.newBuilder(pixy.uri("/topics/" + topic + "/consumers")).GET());
        assertEquals(200, rs.statusCode(), rs.body());
        return object(rs.body());
    }

    private HttpResponse<String> settle(String token, String how, long offset) {
        return send(token, HttpRequest.newBuilder(pixy.uri("/topics/" + topic + "/" + how + "?group=" + group
                + "&partition=0&offset=" + offset)).POST(HttpRequest.BodyPublishers.noBody()));
    }

    private HttpResponse<String> send(String token, HttpRequest.Builder rq) {
        return pixy.send(rq.header("Authorization", "Bearer " + token));
    }

    private KafkaPixyGrpc.KafkaPixyBlockingStub stub(String token) {
        return KafkaPixyGrpc.newBlockingStub(pixy.channel()).withInterceptors(bearer(token))
                .withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    private PixyStreamGrpc.PixyStreamBlockingStub streams(String token) {
        return PixyStreamGrpc.newBlockingStub(pixy.channel()).withInterceptors(bearer(token))
                .withDeadlineAfter(60, TimeUnit.SECONDS);
    }
}
