package io.kafkapixy.server;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.grpc.StatusRuntimeException;
import io.kafkapixy.Application;
import io.kafkapixy.stream.v1.PixyStreamGrpc;
import io.kafkapixy.stream.v1.RejectRequest;
import io.kafkapixy.testing.Scrape;
import io.kafkapixy.testing.StreamConsumer;
import io.kafkapixy.stream.v1.Message;
import mailgun.kafkapixy.AckRq;
import mailgun.kafkapixy.ConsNAckRq;
import mailgun.kafkapixy.ConsRs;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonObject;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Share groups ({@code membership: share}) over REST on the real broker: the broker keeps acks and redeliveries, so
 * what the proxy answers is checked against the group's state read with a plain Admin client.
 */
class ShareGroupTest {

    private final TestKafka kafka = TestKafka.get();
    private final String topic = TestKafka.uniqueTopic("share");
    private final String group = TestKafka.uniqueTopic("sgroup");

    @Test
    void anAckedMessageIsAcceptedAtTheBrokerAndNotDeliveredAgain() throws Exception {
        kafka.createTopic(topic, 1);
        startAtTheOldest(group);
        for (int i = 0; i < 3; i++) {
            kafka.produce(topic, 0, null, "m" + i);
        }
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "share-a",
                ConsumerSettingsBuilder.fast().shareMembership().longPollingTimeout(Duration.ofSeconds(2))))) {
            List<String> values = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                JsonObject m = take(pixy, "&noAck");
                values.add(value(m));
                HttpResponse<String> ack = pixy.post("/topics/" + topic + "/acks?group=" + group + "&partition="
                        + m.getInt("partition") + "&offset=" + m.getJsonNumber("offset"), "text/plain", "");
                assertEquals(200, ack.statusCode(), ack.body());
                assertTrue(object(ack.body()).isEmpty(), ack.body());
            }
            assertEquals(List.of("m0", "m1", "m2"), values);

            TestKafka.Waits.until(Duration.ofSeconds(30), "the broker took every ack", () -> settled(group, 3));
            assertEquals(408, pixy.get(messages("")).statusCode(), "nothing is delivered again");
            HttpResponse<String> again = pixy.post("/topics/" + topic + "/acks?group=" + group
                    + "&partition=0&offset=0", "text/plain", "");
            assertEquals(500, again.statusCode());
            assertEquals("ack timeout", object(again.body()).getString("error"), "a settled record is not out");
        }
    }

    @Test
    void anUnackedMessageComesBackWhenItsLockRunsOutAndALateAckIsRefused() throws Exception {
        kafka.createTopic(topic, 1);
        startAtTheOldest(group);
        kafka.produce(topic, 0, null, "slow");
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "share-b",
                ConsumerSettingsBuilder.fast().shareMembership().ackTimeout(Duration.ofSeconds(2))
                        .longPollingTimeout(Duration.ofSeconds(5))))) {
            JsonObject first = take(pixy, "&noAck");
            assertEquals("slow", value(first));
            assertFalse(settled(group, 1), "a record out with a client is not settled: " + shareOffsets(group));
            JsonObject inFlight = object(pixy.get("/inflight/default/" + group).body()).getJsonArray("clusters")
                    .getJsonObject(0).getJsonArray("groups").getJsonObject(0);
            assertEquals("share", inFlight.getString("mode"));
            JsonObject out = inFlight.getJsonArray("topics").getJsonObject(0).getJsonArray("acquired")
                    .getJsonObject(0);
            assertEquals(first.getJsonNumber("offset").longValue(), out.getJsonNumber("offset").longValue());
            assertEquals("out", out.getString("where"), "acquired here and out with the client: " + inFlight);
            assertEquals(2000, Long.parseLong(groupConfig(group, "share.record.lock.duration.ms")),
                    "ack_timeout is the group's record lock duration");

            JsonObject second = take(pixy, "");
            assertEquals("slow", value(second), "offered again once its lock ran out");
            assertEquals(first.getJsonNumber("offset"), second.getJsonNumber("offset"));
            TestKafka.Waits.until(Duration.ofSeconds(30), "auto-ack accepted at the broker", () -> settled(group, 1));
        }
    }

    @Test
    void eightSlowClientsOnOnePartitionShareItAndEveryMessageIsAcceptedOnce() throws Exception {
        kafka.createTopic(topic, 1);
        startAtTheOldest(group);
        int n = 240;
        for (int i = 0; i < n; i++) {
            kafka.produce(topic, 0, null, "v" + i);
        }
        Map<String, Integer> accepted = new ConcurrentHashMap<>();
        Set<Integer> clientsServed = ConcurrentHashMap.newKeySet();
        AtomicInteger out = new AtomicInteger();
        AtomicInteger mostOutAtOnce = new AtomicInteger();
        AtomicInteger taken = new AtomicInteger();
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "share-c",
                ConsumerSettingsBuilder.fast().shareMembership().longPollingTimeout(Duration.ofSeconds(2))));
             ExecutorService clients = Executors.newFixedThreadPool(8)) {
            List<Future<?>> done = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            for (int c = 0; c < 8; c++) {
                int client = c;
                done.add(clients.submit(() -> {
                    while (accepted.size() < n && System.nanoTime() < deadline) {
                        HttpResponse<String> rs = pixy.get(messages("&noAck"));
                        if (rs.statusCode() != 200) {
                            continue;
                        }
                        mostOutAtOnce.accumulateAndGet(out.incrementAndGet(), Math::max);
                        int mine = taken.incrementAndGet();
                        JsonObject m = object(rs.body());
                        // a slow client: it holds its message while six more are handed out (or the rest are out)
                        Awaitility.await("six more taken").atMost(Duration.ofSeconds(60)).pollDelay(Duration.ZERO)
                                .pollInterval(Duration.ofMillis(2))
                                .until(() -> taken.get() >= mine + 6 || accepted.size() + out.get() >= n);
                        out.decrementAndGet();
                        HttpResponse<String> ack = pixy.post("/topics/" + topic + "/acks?group=" + group
                                + "&partition=0&offset=" + m.getJsonNumber("offset"), "text/plain", "");
                        assertEquals(200, ack.statusCode(), ack.body());
                        accepted.merge(value(m), 1, Integer::sum);
                        clientsServed.add(client);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(180, TimeUnit.SECONDS);
            }
        }
        Set<String> missing = new java.util.TreeSet<>();
        for (int i = 0; i < n; i++) {
            if (!accepted.containsKey("v" + i)) {
                missing.add("v" + i);
            }
        }
        assertEquals(Set.of(), missing, "every message accepted; " + shareOffsets(group));
        assertTrue(accepted.values().stream().allMatch(count -> count == 1), "none accepted twice: " + accepted);
        assertEquals(8, clientsServed.size(), "every client was served");
        assertTrue(mostOutAtOnce.get() >= 5, "the clients held messages at once: at most " + mostOutAtOnce.get());
        TestKafka.Waits.until(Duration.ofSeconds(30), "the broker took every ack", () -> settled(group, n));
    }

    @Test
    void aRejectedMessageIsArchivedAndNeverDeliveredAgain() throws Exception {
        kafka.createTopic(topic, 1);
        startAtTheOldest(group);
        kafka.produce(topic, 0, null, "poison");
        kafka.produce(topic, 0, null, "good");
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "share-f",
                ConsumerSettingsBuilder.fast().shareMembership().ackTimeout(Duration.ofSeconds(2))
                        .longPollingTimeout(Duration.ofSeconds(4))))) {
            JsonObject poison = take(pixy, "&noAck");
            assertEquals("poison", value(poison));
            HttpResponse<String> rs = pixy.post("/topics/" + topic + "/rejects?group=" + group + "&partition=0&offset="
                    + poison.getJsonNumber("offset"), "text/plain", "");
            assertEquals(200, rs.statusCode(), rs.body());
            assertEquals("good", value(take(pixy, "")));

            assertEquals(408, pixy.get(messages("")).statusCode(), "not again after its lock would have run out");
            TestKafka.Waits.until(Duration.ofSeconds(30), "both settled at the broker", () -> settled(group, 2));
            Scrape metrics = Scrape.parse(pixy.get("/metrics").body());
            String[] labels = {"cluster", "default", "group", group, "topic", topic, "mode", "share"};
            assertEquals(1, metrics.value("kafkapixy_consume_rejects_total", labels));
            assertEquals(1, metrics.value("kafkapixy_consume_acks_total", labels), "the auto-acked one");
        }
    }

    @Test
    void grpcAckAndRejectAnswerOnceTheBrokerTookThem() throws Exception {
        kafka.createTopic(topic, 1);
        startAtTheOldest(group);
        kafka.produce(topic, 0, null, "one");
        kafka.produce(topic, 0, null, "two");
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "share-g",
                ConsumerSettingsBuilder.fast().shareMembership().longPollingTimeout(Duration.ofSeconds(5))))) {
            ConsRs one = grpcTake(pixy);
            pixy.grpc().ack(AckRq.newBuilder().setTopic(topic).setGroup(group).setPartition(one.getPartition())
                    .setOffset(one.getOffset()).build());
            ConsRs two = grpcTake(pixy);
            assertEquals(List.of("one", "two"), List.of(one.getMessage().toStringUtf8(),
                    two.getMessage().toStringUtf8()));
            var stream = PixyStreamGrpc.newBlockingStub(pixy.channel()).withDeadlineAfter(60, TimeUnit.SECONDS);
            RejectRequest reject = RejectRequest.newBuilder().setGroup(group).setTopic(topic)
                    .setPartition(two.getPartition()).setOffset(two.getOffset()).build();
            stream.reject(reject);

            TestKafka.Waits.until(Duration.ofSeconds(30), "both settled at the broker", () -> settled(group, 2));
            StatusRuntimeException again = assertThrows(StatusRuntimeException.class, () -> stream.reject(reject));
            assertEquals("ack timeout", again.getStatus().getDescription());
        }
    }

    @Test
    void aStreamTakesRecordsForItsCreditsAndWhatItHeldComesBackAtItsEnd() throws Exception {
        kafka.createTopic(topic, 1);
        startAtTheOldest(group);
        for (int i = 0; i < 6; i++) {
            kafka.produce(topic, 0, null, "s" + i);
        }
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "share-h",
                ConsumerSettingsBuilder.fast().shareMembership()))) {
            StreamConsumer first = StreamConsumer.open(pixy.channel(), group, List.of(topic), 4);
            List<Message> got = first.take(4, Duration.ofSeconds(60));
            assertEquals(List.of(1, 1, 1, 1), got.stream().map(Message::getAttempt).toList());
            first.ack(got.get(0), got.get(1));
            first.nack(got.get(2), 0);
            first.credit(1);

            Message nacked = first.take(Duration.ofSeconds(60));
            assertTrue(nacked.getAttempt() == 2 || nacked.getOffset() >= 4, "a record again, or a new one: "
                    + nacked);
            first.cancel();

            // what the first stream held and never acked comes back to the next client, none of the acked ones
            StreamConsumer second = StreamConsumer.open(pixy.channel(), group, List.of(topic), 10);
            List<Message> rest = second.take(4, Duration.ofSeconds(60));
            rest.forEach(second::ack);
            // handed out by several share consumers at once: in any order, so the acked ones are named by offset
            Set<Long> expected = new java.util.TreeSet<>(List.of(0L, 1L, 2L, 3L, 4L, 5L));
            expected.remove(got.get(0).getOffset());
            expected.remove(got.get(1).getOffset());
            assertEquals(expected, rest.stream().map(Message::getOffset)
                    .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new)));
            TestKafka.Waits.until(Duration.ofSeconds(30), "all settled at the broker", () -> settled(group, 6));
            second.cancel();
        }
    }

    @Test
    void offsetsAndConsumersAnswerForAShareGroupAndOffsetsAreSetOnlyWhileItHasNoMembers() throws Exception {
        kafka.createTopic(topic, 1);
        startAtTheOldest(group);
        for (int i = 0; i < 3; i++) {
            kafka.produce(topic, 0, null, "o" + i);
        }
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "share-i",
                ConsumerSettingsBuilder.fast().shareMembership().longPollingTimeout(Duration.ofSeconds(5))))) {
            JsonObject before = offsets(pixy).getJsonObject(0);
            assertEquals(-1, before.getJsonNumber("offset").longValue(), "not read yet: " + before);
            for (int i = 0; i < 3; i++) {
                take(pixy, "");
            }
            TestKafka.Waits.until(Duration.ofSeconds(30), "settled", () -> settled(group, 3));
            JsonObject after = offsets(pixy).getJsonObject(0);
            assertEquals(0, after.getInt("begin"));
            assertEquals(3, after.getInt("end"));
            assertEquals(0, after.getJsonNumber("lag").longValue(), after.toString());
            assertEquals(shareOffsets(group).get(new TopicPartition(topic, 0)).startOffset(),
                    after.getJsonNumber("offset").longValue(), "the group's start offset, as the Admin client reads it");

            var grpcOffsets = pixy.grpc().getOffsets(mailgun.kafkapixy.GetOffsetsRq.newBuilder().setGroup(group)
                    .setTopic(topic).build()).getOffsets(0);
            assertEquals(after.getJsonNumber("offset").longValue(), grpcOffsets.getOffset(), "gRPC answers the same");
            assertEquals(0, grpcOffsets.getLag());

            HttpResponse<String> consumers = pixy.get("/topics/" + topic + "/consumers?group=" + group);
            assertEquals(200, consumers.statusCode(), consumers.body());
            JsonObject members = object(consumers.body()).getJsonObject(group);
            assertTrue(members.size() >= 1, consumers.body());
            members.values().forEach(parts -> assertEquals("[0]", parts.toString().replaceAll("\\s", "")));

            HttpResponse<String> busy = pixy.post("/topics/" + topic + "/offsets?group=" + group,
                    "application/json", "[{\"partition\": 0, \"offset\": 0}]");
            assertEquals(409, busy.statusCode(), busy.body());
            assertTrue(object(busy.body()).getString("error").contains("The group is not empty."), busy.body());
        }
        TestKafka.Waits.until(Duration.ofSeconds(60), "the group's members gone", () -> {
            try {
                return kafka.admin().describeShareGroups(List.of(group)).describedGroups().get(group)
                        .get(30, TimeUnit.SECONDS).members().isEmpty();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "share-j",
                ConsumerSettingsBuilder.fast().shareMembership().longPollingTimeout(Duration.ofSeconds(5))))) {
            HttpResponse<String> set = pixy.post("/topics/" + topic + "/offsets?group=" + group,
                    "application/json", "[{\"partition\": 0, \"offset\": 1}]");
            assertEquals(200, set.statusCode(), set.body());
            assertEquals(1, shareOffsets(group).get(new TopicPartition(topic, 0)).startOffset());
            assertEquals("o1", value(take(pixy, "")), "read again from the offset set");
        }
    }

    private jakarta.json.JsonArray offsets(RunningPixy pixy) {
        HttpResponse<String> rs = pixy.get("/topics/" + topic + "/offsets?group=" + group);
        assertEquals(200, rs.statusCode(), rs.body());
        return jakarta.json.Json.createReader(new java.io.StringReader(rs.body())).readArray();
    }

    @Test
    void aNewShareGroupStartsAtTheNewestRecordAsOfItsFirstRequestAsAClassicGroupDoes() throws Exception {
        kafka.createTopic(topic, 1);
        kafka.produce(topic, 0, null, "old");
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "share-k",
                ConsumerSettingsBuilder.fast().shareMembership().longPollingTimeout(Duration.ofSeconds(1))))) {
            assertEquals(408, pixy.get(messages("")).statusCode());
            assertEquals(1, shareOffsets(group).get(new TopicPartition(topic, 0)).startOffset(),
                    "started at the newest at once, not at its first fetch");
            kafka.produce(topic, 0, null, "new");

            assertEquals("new", value(take(pixy, "")));
        }
    }

    private ConsRs grpcTake(RunningPixy pixy) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                return pixy.grpc().consumeNAck(ConsNAckRq.newBuilder().setTopic(topic).setGroup(group).setNoAck(true)
                        .build());
            } catch (StatusRuntimeException e) {
                if (e.getStatus().getCode() != io.grpc.Status.Code.NOT_FOUND || System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    /**
     * One client takes a message and never acks it, seven others ack theirs, all on one partition: the seven get
     * every other message while the first one's record is still locked to its client (ack_timeout a minute), so none
     * of theirs is a redelivery and the held one never reaches them.
     */
    @Test
    void sevenAckingClientsDoNotWaitForTheLockOfOneThatNeverAcks() throws Exception {
        kafka.createTopic(topic, 1);
        startAtTheOldest(group);
        int n = 100;
        for (int i = 0; i < n; i++) {
            kafka.produce(topic, 0, null, "v" + i);
        }
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "share-l",
                ConsumerSettingsBuilder.fast().shareMembership().ackTimeout(Duration.ofMinutes(1))
                        .longPollingTimeout(Duration.ofSeconds(2))));
             ExecutorService clients = Executors.newFixedThreadPool(7)) {
            JsonObject held = take(pixy, "&noAck");
            Map<Long, Integer> seen = new ConcurrentHashMap<>();
            List<Future<?>> done = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(50);
            for (int c = 0; c < 7; c++) {
                done.add(clients.submit(() -> {
                    while (seen.size() < n - 1 && System.nanoTime() < deadline) {
                        HttpResponse<String> rs = pixy.get(messages("&noAck"));
                        if (rs.statusCode() != 200) {
                            continue;
                        }
                        JsonObject m = object(rs.body());
                        long offset = m.getJsonNumber("offset").longValue();
                        seen.merge(offset, 1, Integer::sum);
                        assertEquals(200, pixy.post("/topics/" + topic + "/acks?group=" + group + "&partition=0"
                                + "&offset=" + offset, "text/plain", "").statusCode());
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
            assertEquals(n - 1, seen.size(), "every message but the held one, before its lock ran out");
            assertFalse(seen.containsKey(held.getJsonNumber("offset").longValue()), "the held one stayed held");
            assertTrue(seen.values().stream().allMatch(count -> count == 1), "none delivered twice: " + seen);
            TestKafka.Waits.until(Duration.ofSeconds(30), "the seven's acks at the broker",
                    () -> shareOffsets(group).get(new TopicPartition(topic, 0)).lag().orElse(-1L) == 1);
        }
    }

    /**
     * On four partitions, one client holds a message without acking it (ack_timeout a minute): once the group's members
     * here have their partitions, the messages of every partition, the held one's included, reach another client that
     * waits, long before that minute.
     */
    @Test
    void aHeldMessageHoldsBackNoPartitionWhileAnotherClientWaits() throws Exception {
        kafka.createTopic(topic, 4);
        startAtTheOldest(group);
        kafka.produce(topic, 0, null, "held");
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "share-p",
                ConsumerSettingsBuilder.fast().shareMembership().ackTimeout(Duration.ofMinutes(1))
                        .longPollingTimeout(Duration.ofSeconds(2))))) {
            JsonObject held = take(pixy, "&noAck");
            assertEquals("held", value(held));
            long heldAt = System.nanoTime();
            // a topic in use keeps a consumer more than it has partitions: the brokers give each partition to two
            TestKafka.Waits.until(Duration.ofSeconds(40), "every partition with two members", () -> {
                Map<Integer, Integer> members = new java.util.HashMap<>();
                describeShareGroup(group).members().forEach(m -> m.assignment().topicPartitions()
                        .forEach(tp -> members.merge(tp.partition(), 1, Integer::sum)));
                return members.size() == 4 && members.values().stream().allMatch(n -> n >= 2);
            });
            for (int p = 0; p < 4; p++) {
                kafka.produce(topic, p, null, "p" + p);
            }
            Set<String> seen = new java.util.HashSet<>();
            while (seen.size() < 4) {
                seen.add(value(take(pixy, "")));
            }
            assertEquals(Set.of("p0", "p1", "p2", "p3"), seen);
            assertTrue(System.nanoTime() - heldAt < TimeUnit.SECONDS.toNanos(50), "while the first is still held");
            assertEquals(200, pixy.post("/topics/" + topic + "/acks?group=" + group + "&partition=0&offset="
                    + held.getJsonNumber("offset"), "text/plain", "").statusCode(), "the held one is still its own");
        }
    }

    @Test
    void aGroupIdOfAClassicGroupIsRefusedWithTheBrokersReason() {
        kafka.createTopic(topic, 1);
        kafka.commit(group, topic, 0, 0, "");
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "share-d",
                ConsumerSettingsBuilder.fast().shareMembership()))) {
            HttpResponse<String> rs = pixy.get(messages(""));
            assertEquals(500, rs.statusCode(), rs.body());
            assertTrue(object(rs.body()).getString("error").contains("is not a share group"), rs.body());
        }
    }

    @Test
    void anAckTimeoutLongerThanTheBrokersLongestLockStartsAndTheGroupGetsTheLongestLock() throws Exception {
        kafka.createTopic(topic, 1);
        startAtTheOldest(group);
        kafka.produce(topic, 0, null, "m0");
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "share-e",
                ConsumerSettingsBuilder.fast().shareMembership().ackTimeout(Duration.ofHours(2))
                        .longPollingTimeout(Duration.ofSeconds(2))))) {
            assertEquals("m0", value(take(pixy, "")));
            assertEquals(3_600_000, Long.parseLong(groupConfig(group, "share.record.lock.duration.ms")),
                    "the brokers allow at most an hour; the proxy renews the lock for the rest");
        }
    }

    /**
     * A batch brings two records for one client: the second waits here, and is handed out when its lock has less
     * than its client's ack_timeout left. Its client still has the whole ack_timeout (the lock is renewed), and the
     * first, never acked, goes to the next client no sooner than ack_timeout after it was handed out.
     */
    @Test
    void aClientHasItsWholeAckTimeoutFromHandOutEvenWhenTheRecordWaitedHereFirst() throws Exception {
        kafka.createTopic(topic, 1);
        startAtTheOldest(group);
        kafka.produce(topic, 0, null, "m0");
        kafka.produce(topic, 0, null, "m1");
        Duration ackTimeout = Duration.ofSeconds(3);
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "share-r",
                ConsumerSettingsBuilder.fast().shareMembership().ackTimeout(ackTimeout)
                        .longPollingTimeout(Duration.ofSeconds(5))))) {
            // no later than the hand-out: the answer reaches this client some time after the proxy handed it out
            long firstOut = System.nanoTime();
            JsonObject first = take(pixy, "&noAck");
            assertEquals("m0", value(first));
            // m1 came with the same fetch and waits here until its lock has run two thirds of its course
            Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                    .until(() -> waitingFor(pixy, 1) >= 2_000);
            JsonObject second = take(pixy, "&noAck");
            long secondOut = System.nanoTime();
            assertEquals("m1", value(second));
            // held past the lock it was acquired with (3 s from its fetch), within its own ack_timeout
            Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                    .until(() -> System.nanoTime() - secondOut >= TimeUnit.MILLISECONDS.toNanos(2_000));
            HttpResponse<String> ack = pixy.post("/topics/" + topic + "/acks?group=" + group
                    + "&partition=0&offset=1", "text/plain", "");
            assertEquals(200, ack.statusCode(), "renewed for its client: " + ack.body());

            JsonObject again = take(pixy, "");
            assertEquals("m0", value(again), "the unacked one is offered again");
            assertTrue(System.nanoTime() - firstOut >= ackTimeout.toNanos(),
                    "no sooner than ack_timeout after it was handed out");
            TestKafka.Waits.until(Duration.ofSeconds(30), "both accepted at the broker", () -> settled(group, 2));
        }
    }

    /** How long the record at {@code offset} has been acquired here, waiting for a client; -1 when it is not. */
    private long waitingFor(RunningPixy pixy, long offset) {
        JsonObject groupView = object(pixy.get("/inflight/default/" + group).body()).getJsonArray("clusters")
                .getJsonObject(0).getJsonArray("groups").getJsonObject(0);
        for (JsonObject m : groupView.getJsonArray("topics").getJsonObject(0).getJsonArray("acquired")
                .getValuesAs(JsonObject.class)) {
            if (m.getJsonNumber("offset").longValue() == offset && m.getString("where").equals("waiting")) {
                return m.getJsonNumber("age_ms").longValue();
            }
        }
        return -1;
    }

    @Test
    void aMaxRetriesOutsideTheBrokersDeliveryBoundsStopsTheStartNamingBoth() {
        var config = RunningPixy.config(kafka.bootstrap(), "share-m",
                ConsumerSettingsBuilder.fast().shareMembership().maxRetries(0));
        RuntimeException e = assertThrows(RuntimeException.class, () -> Application.start(config).close());
        String text = String.valueOf(e.getMessage()) + (e.getCause() == null ? "" : e.getCause().getMessage());
        assertTrue(text.contains("consumer.max_retries 0 makes a share group delivery count limit of 1 (retries + 1), "
                                 + "outside the 2 to 10 the brokers allow"), text);
    }

    private JsonObject take(RunningPixy pixy, String flags) {
        return pixy.takeMessage(messages(flags));
    }

    private String messages(String flags) {
        return "/topics/" + topic + "/messages?group=" + group + flags;
    }

    /** A new share group starts at the newest record, as the original's groups do; these tests read from the oldest. */
    private void startAtTheOldest(String g) throws Exception {
        kafka.admin().incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, g),
                List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
                        AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
    }

    private org.apache.kafka.clients.admin.ShareGroupDescription describeShareGroup(String g) {
        try {
            return kafka.admin().describeShareGroups(List.of(g)).all().get(30, TimeUnit.SECONDS).get(g);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private String groupConfig(String g, String name) throws Exception {
        ConfigResource r = new ConfigResource(ConfigResource.Type.GROUP, g);
        return kafka.admin().describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r).get(name).value();
    }

    /**
     * Whether every record of the topic's one partition up to {@code end} is settled at the broker: nothing left to
     * deliver (the group's start offset moves up to them lazily, at the partition's next fetch).
     */
    private boolean settled(String g, long end) {
        SharePartitionOffsetInfo state = shareOffsets(g).get(new TopicPartition(topic, 0));
        return state != null && state.lag().orElse(-1L) == 0 && kafka.endOffsets(topic, 1).get(0) == end;
    }

    private Map<TopicPartition, SharePartitionOffsetInfo> shareOffsets(String g) {
        try {
            return kafka.admin().listShareGroupOffsets(Map.of(g, new ListShareGroupOffsetsSpec()))
                    .partitionsToOffsetInfo(g).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static String value(JsonObject m) {
        return new String(Base64.getDecoder().decode(m.getString("value")), StandardCharsets.UTF_8);
    }
}
