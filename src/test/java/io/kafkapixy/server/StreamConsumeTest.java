package io.kafkapixy.server;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.grpc.Status;
import io.kafkapixy.stream.v1.ConsumeRequest;
import io.kafkapixy.stream.v1.Message;
import io.kafkapixy.stream.v1.MessageRef;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.Scrape;
import io.kafkapixy.testing.StreamConsumer;
import io.kafkapixy.testing.TestKafka;
import io.kafkapixy.testing.TestKafka.Waits;
import mailgun.kafkapixy.AckRq;
import mailgun.kafkapixy.ConsNAckRq;
import mailgun.kafkapixy.ConsRs;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The streaming {@code Consume} of {@code kafkapixy_stream.proto} against a real broker: credits, acks, nacks,
 * redelivery when a stream ends, the unacked bound per partition, state shared with the unary calls, and the
 * stream-level errors. Offsets are checked with Kafka's own Admin client.
 */
@Timeout(180)
class StreamConsumeTest {

    private static final int MAX_PENDING = 5;
    /** Far longer than any wait here: a redelivery seen in these tests is not the ack timeout's. */
    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static TestKafka kafka;
    private static RunningPixy pixy;

    @BeforeAll
    static void start() {
        kafka = TestKafka.get();
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_streamc",
                new ConsumerSettingsBuilder().maxPendingMessages(MAX_PENDING).ackTimeout(ACK_TIMEOUT)));
    }

    @AfterAll
    static void stop() {
        pixy.close();
    }

    /** A topic holding {@code perPartition} messages {@code v<p>-<i>} with keys {@code k<p>-<i>}, read from 0. */
    private static String topicWithMessages(String group, int partitions, int perPartition) {
        String topic = kafka.createTopic(TestKafka.uniqueTopic("streamc"), partitions);
        for (int p = 0; p < partitions; p++) {
            for (int i = 0; i < perPartition; i++) {
                kafka.produce(topic, p, "k" + p + "-" + i, "v" + p + "-" + i);
            }
            kafka.commit(group, topic, p, 0, "");
        }
        return topic;
    }

    private static String value(Message m) {
        return m.getMessage().toString(StandardCharsets.UTF_8);
    }

    private static StreamConsumer open(String group, String topic, int credits) {
        return StreamConsumer.open(pixy.channel(), group, List.of(topic), credits);
    }

    private static void awaitCommitted(String group, String topic, Map<Integer, Long> expected) {
        Waits.until(WAIT, "committed " + expected, () -> expected.entrySet().stream().allMatch(e -> {
            OffsetAndMetadata om = kafka.committed(group, topic).get(e.getKey());
            return om != null && om.offset() == e.getValue();
        }));
    }

    @Test
    void sendsExactlyOneMessagePerCredit() throws Exception {
        String group = "g-credits";
        String topic = topicWithMessages(group, 1, 20);
        StreamConsumer stream = open(group, topic, 3);

        List<Message> first = stream.take(3, WAIT);
        assertEquals(List.of("v0-0", "v0-1", "v0-2"), first.stream().map(StreamConsumeTest::value).toList());
        Message m = first.getFirst();
        assertEquals(topic, m.getTopic());
        assertEquals("k0-0", m.getKeyValue().toString(StandardCharsets.UTF_8));
        assertFalse(m.getKeyUndefined());
        assertEquals(1, m.getAttempt());
        Waits.holdsFor(Duration.ofSeconds(1), "no message beyond the credits", () -> stream.waiting() == 0);

        stream.credit(2);
        assertEquals(List.of("v0-3", "v0-4"), stream.take(2, WAIT).stream().map(StreamConsumeTest::value).toList());
        Waits.holdsFor(Duration.ofSeconds(1), "no message beyond the credits", () -> stream.waiting() == 0);
        stream.halfClose();
        assertEquals(Status.Code.OK, stream.awaitEnd(WAIT).getCode());
    }

    @Test
    void neverMoreThanMaxPendingPlusOneUnackedPerPartitionAndAcksAreCommitted() throws Exception {
        String group = "g-pending";
        String topic = topicWithMessages(group, 2, 10);
        StreamConsumer stream = open(group, topic, 100);

        List<Message> got = stream.take(2 * (MAX_PENDING + 1), WAIT);
        Map<Integer, Long> perPartition = got.stream()
                .collect(Collectors.groupingBy(Message::getPartition, Collectors.counting()));
        assertEquals(Map.of(0, (long) MAX_PENDING + 1, 1, (long) MAX_PENDING + 1), perPartition);
        Waits.holdsFor(Duration.ofSeconds(1), "nothing past max_pending + 1 unacked", () -> stream.waiting() == 0);

        // acks of offsets 0, 1 and 3 of partition 0: the commit stops at 2, 3 rides in the sparse acks
        List<Message> p0 = got.stream().filter(r -> r.getPartition() == 0).toList();
        stream.ack(p0.get(0), p0.get(1), p0.get(3));
        awaitCommitted(group, topic, Map.of(0, 2L));
        assertFalse(kafka.committed(group, topic).get(0).metadata().isEmpty(), "sparse acks in the metadata");

        List<Message> more = stream.take(3, WAIT);
        assertTrue(more.stream().allMatch(r -> r.getPartition() == 0), "only partition 0 had room: " + more);
        assertEquals(List.of(6L, 7L, 8L), more.stream().map(Message::getOffset).toList());
        Waits.holdsFor(Duration.ofSeconds(1), "nothing past max_pending + 1 unacked", () -> stream.waiting() == 0);

        List<Message> rest = new ArrayList<>(got);
        rest.addAll(more);
        stream.ack(rest.toArray(Message[]::new));
        // what is left: offset 9 of partition 0, 6 to 9 of partition 1
        List<Message> last = stream.take(5, WAIT);
        stream.ack(last.toArray(Message[]::new));
        awaitCommitted(group, topic, Map.of(0, 10L, 1, 10L));
        stream.cancel();
    }

    @Test
    void aNackedMessageIsOfferedAgainAfterItsDelay() throws Exception {
        String group = "g-nack";
        String topic = topicWithMessages(group, 1, 1);
        StreamConsumer stream = open(group, topic, 10);

        Message m = stream.take(WAIT);
        stream.nack(m, 0);
        Message again = stream.take(WAIT);
        assertEquals(m.getOffset(), again.getOffset());
        assertEquals(2, again.getAttempt());

        stream.nack(again, 3000);
        Waits.holdsFor(Duration.ofMillis(2000), "not before the delay", () -> stream.waiting() == 0);
        Message third = stream.take(WAIT);
        assertEquals(m.getOffset(), third.getOffset());
        assertEquals(3, third.getAttempt());
        stream.ack(third);
        awaitCommitted(group, topic, Map.of(0, 1L));
        stream.cancel();
    }

    @Test
    void messagesReadyTogetherComeInOneResponseOfAtMostOneMebibyte() throws Exception {
        String group = "g-batch";
        String topic = topicWithMessages(group, 1, 5);
        String big = "x".repeat(600 * 1024);
        for (int i = 0; i < 3; i++) {
            kafka.produce(topic, 0, "big" + i, big);
        }
        StreamConsumer stream = open(group, topic, 5);
        List<Message> first = stream.take(5, WAIT);
        // given back at once while the stream has no credits, then all five are ready when credits come
        first.forEach(m -> stream.nack(m, 0));
        Waits.holdsFor(Duration.ofMillis(300), "no credits, no messages", () -> stream.waiting() == 0);
        int before = stream.responses.size();
        stream.credit(5);
        List<Message> again = stream.take(5, WAIT);
        assertEquals(first.stream().map(Message::getOffset).toList(),
                again.stream().map(Message::getOffset).toList());
        assertEquals(1, stream.responses.size() - before, "one response for the five");
        assertEquals(5, stream.responses.get(before)[0]);

        stream.ack(again.toArray(Message[]::new));
        stream.credit(3);
        List<Message> large = stream.take(3, WAIT);
        assertEquals(big.length(), large.getFirst().getMessage().size());
        synchronized (stream.responses) {
            for (int[] response : stream.responses.subList(before + 1, stream.responses.size())) {
                assertEquals(1, response[0], "600 KiB messages: one to a response, under the 1 MiB cut");
            }
        }
        stream.ack(large.toArray(Message[]::new));
        awaitCommitted(group, topic, Map.of(0, 8L));
        stream.cancel();
    }

    @Test
    void anAckOfAMessageNotOutWithAClientIsDropped() throws Exception {
        String group = "g-stray";
        String topic = topicWithMessages(group, 1, 3);
        StreamConsumer stream = open(group, topic, 1);
        assertEquals(0, stream.take(WAIT).getOffset());
        // offset 1 was never sent: acking it must not make the group skip it
        stream.send(ConsumeRequest.newBuilder().addAcks(MessageRef.newBuilder().setPartition(0).setOffset(1)).build());
        stream.credit(1);
        assertEquals(1, stream.take(WAIT).getOffset());
        stream.cancel();
    }

    @Test
    void aNackDelayLongerThanTheAckTimeoutEndsTheStream() throws Exception {
        String group = "g-longnack";
        String topic = topicWithMessages(group, 1, 1);
        StreamConsumer stream = open(group, topic, 1);
        Message m = stream.take(WAIT);
        stream.nack(m, (int) ACK_TIMEOUT.toMillis() + 1);
        assertStatus(stream, Status.Code.INVALID_ARGUMENT, "a nack's delay_ms (" + (ACK_TIMEOUT.toMillis() + 1)
                + ") must not be longer than consumer.ack_timeout (" + ACK_TIMEOUT.toMillis() + " ms)");
        // what it held went back at once
        StreamConsumer other = open(group, topic, 1);
        assertEquals(m.getOffset(), other.take(WAIT).getOffset());
        other.cancel();
    }

    @Test
    void whatAnEndedStreamHeldGoesAtOnceToAnotherStream() throws Exception {
        String group = "g-end";
        String topic = topicWithMessages(group, 4, 3);
        double before = scrape().value("kafkapixy_stream_given_back_total");
        StreamConsumer a = open(group, topic, 12);
        List<Message> held = a.take(12, WAIT);
        a.ack(held.get(0), held.get(1));
        Set<String> unacked = held.subList(2, 12).stream().map(StreamConsumeTest::id).collect(Collectors.toSet());
        StreamConsumer b = open(group, topic, 100);
        Waits.holdsFor(Duration.ofMillis(500), "nothing for the second stream while the first holds it all",
                () -> b.waiting() == 0);

        long ended = System.nanoTime();
        a.cancel();
        List<Message> redelivered = b.take(10, WAIT);
        Duration took = Duration.ofNanos(System.nanoTime() - ended);
        assertEquals(unacked, redelivered.stream().map(StreamConsumeTest::id).collect(Collectors.toSet()));
        assertTrue(redelivered.stream().allMatch(r -> r.getAttempt() == 2), "second deliveries");
        assertTrue(took.compareTo(ACK_TIMEOUT.dividedBy(2)) < 0, "at once, not after ack_timeout: " + took);
        Waits.until(WAIT, "counted", () -> scrape().value("kafkapixy_stream_given_back_total") - before == 10);

        b.ack(redelivered.toArray(Message[]::new));
        awaitCommitted(group, topic, Map.of(0, 3L, 1, 3L, 2, 3L, 3, 3L));
        b.halfClose();
        assertEquals(Status.Code.OK, b.awaitEnd(WAIT).getCode());
    }

    @Test
    void aStreamThatHalfClosesGivesBackWhatItHolds() throws Exception {
        String group = "g-halfclose";
        String topic = topicWithMessages(group, 1, 2);
        StreamConsumer a = open(group, topic, 2);
        List<Message> held = a.take(2, WAIT);
        a.ack(held.get(0));
        a.halfClose();
        assertEquals(Status.Code.OK, a.awaitEnd(WAIT).getCode());

        StreamConsumer b = open(group, topic, 5);
        Message again = b.take(WAIT);
        assertEquals(held.get(1).getOffset(), again.getOffset());
        assertEquals(2, again.getAttempt());
        b.ack(again);
        awaitCommitted(group, topic, Map.of(0, 2L));
        b.cancel();
    }

    @Test
    void streamsAndUnaryCallsOfAGroupShareMessagesAndAcks() throws Exception {
        String group = "g-shared";
        String topic = topicWithMessages(group, 1, 2);
        StreamConsumer stream = open(group, topic, 0);

        // with no credits on the stream, the unary call gets the first message; the stream acks it
        ConsRs unary = pixy.grpc().consumeNAck(ConsNAckRq.newBuilder().setGroup(group).setTopic(topic).setNoAck(true)
                .build());
        assertEquals(0, unary.getOffset());
        stream.send(ConsumeRequest.newBuilder().addAcks(MessageRef.newBuilder().setPartition(0).setOffset(0)).build());
        awaitCommitted(group, topic, Map.of(0, 1L));

        // the stream gets the second; the unary Ack acks it
        stream.credit(1);
        Message m = stream.take(WAIT);
        assertEquals(1, m.getOffset());
        pixy.grpc().ack(AckRq.newBuilder().setGroup(group).setTopic(topic).setPartition(0).setOffset(1).build());
        awaitCommitted(group, topic, Map.of(0, 2L));
        stream.cancel();
    }

    @Test
    void twoStreamsOfAGroupShareItsMessages() throws Exception {
        String group = "g-two";
        String topic = topicWithMessages(group, 4, 2);
        StreamConsumer a = open(group, topic, 4);
        StreamConsumer b = open(group, topic, 4);
        List<Message> all = new ArrayList<>(a.take(4, WAIT));
        all.addAll(b.take(4, WAIT));
        assertEquals(8, all.stream().map(StreamConsumeTest::id).collect(Collectors.toSet()).size(), "each once");
        a.ack(all.subList(0, 4).toArray(Message[]::new));
        b.ack(all.subList(4, 8).toArray(Message[]::new));
        awaitCommitted(group, topic, Map.of(0, 2L, 1, 2L, 2, 2L, 3, 2L));
        a.cancel();
        b.cancel();
    }

    @Test
    void streamLevelProblemsEndTheStreamWithTheUnaryStatus() throws Exception {
        assertEnds(ConsumeRequest.newBuilder().setCluster("nope").setGroup("g").addTopics("t").build(),
                Status.Code.INVALID_ARGUMENT, "proxy `nope` does not exist");
        assertEnds(ConsumeRequest.newBuilder().setGroup("g").build(), Status.Code.INVALID_ARGUMENT,
                "a stream needs at least one topic");
        assertEnds(ConsumeRequest.newBuilder().addTopics("t").build(), Status.Code.INVALID_ARGUMENT,
                "consumer group must not be empty");
        assertEnds(ConsumeRequest.newBuilder().setGroup("g").addTopics("bad topic").build(),
                Status.Code.INVALID_ARGUMENT, null);

        String topic = TestKafka.uniqueTopic("streamerr");
        StreamConsumer again = open("g-err", topic, 0);
        again.send(ConsumeRequest.newBuilder().setGroup("g-err").addTopics(topic).build());
        assertStatus(again, Status.Code.INVALID_ARGUMENT, "only the first request of a stream subscribes");

        StreamConsumer other = open("g-err", topic, 0);
        other.send(ConsumeRequest.newBuilder().addAcks(MessageRef.newBuilder().setTopic("else")).build());
        assertStatus(other, Status.Code.INVALID_ARGUMENT,
                "an ack or nack of topic else, which this stream does not consume");

        StreamConsumer greedy = open("g-err", topic, 4000);
        greedy.credit(100);
        assertStatus(greedy, Status.Code.RESOURCE_EXHAUSTED,
                "Too many credits: at most 4096 may be unspent at once (limits.max_credits_per_stream)");
    }

    private static void assertEnds(ConsumeRequest first, Status.Code code, String text) throws Exception {
        StreamConsumer s = new StreamConsumer(pixy.channel());
        s.send(first);
        assertStatus(s, code, text);
    }

    private static void assertStatus(StreamConsumer s, Status.Code code, String text) throws Exception {
        Status status = s.awaitEnd(WAIT);
        assertEquals(code, status.getCode(), String.valueOf(status));
        if (text != null) {
            assertEquals(text, status.getDescription());
        }
    }

    private static String id(Message m) {
        return m.getPartition() + "@" + m.getOffset();
    }

    private static Scrape scrape() {
        return Scrape.parse(pixy.get("/metrics").body());
    }
}
