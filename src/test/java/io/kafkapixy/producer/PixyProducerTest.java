package io.kafkapixy.producer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.kafkapixy.config.ProducerConfig;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.testing.Background;
import io.kafkapixy.testing.TestKafka.Waits;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The producer's rules, on Kafka's MockProducer. End-to-end behaviour is in the server tests. */
class PixyProducerTest {

    private static final Cluster CLUSTER = new Cluster("c", List.of(new org.apache.kafka.common.Node(1, "localhost", 9092)),
            PartitionChooserTest.partitions(4),
            Set.of(), Set.of());
    private final MockProducer<byte[], byte[]> mock =
            new MockProducer<>(CLUSTER, true, null, new ByteArraySerializer(), new ByteArraySerializer());
    private final TopicPartitions fourPartitions = topic -> PartitionChooserTest.partitions(4);

    @Test
    void aSyncProduceWritesKeyValueAndHeadersToTheHashedPartition() {
        PixyProducer producer = new PixyProducer(mock, fourPartitions, ProducerConfig.DEFAULT, ProducerMetrics.NONE);
        ProduceResult result = producer.produceSync(new ProduceRequest("t", MessageKey.of(bytes("bar")),
                bytes("hello"), List.of(new RecordHeader("Foo", bytes("x")))));

        assertEquals(2, result.partition());
        ProducerRecord<byte[], byte[]> sent = mock.history().getFirst();
        assertEquals(2, sent.partition());
        assertArrayEquals(bytes("bar"), sent.key());
        assertArrayEquals(bytes("hello"), sent.value());
        assertArrayEquals(bytes("x"), sent.headers().lastHeader("Foo").value());
    }

    @Test
    void aMessageThatCannotWaitIsAnsweredLaterAndNotCountedAsAsync() throws Exception {
        MockProducer<byte[], byte[]> manual =
                new MockProducer<>(CLUSTER, false, null, new ByteArraySerializer(), new ByteArraySerializer());
        PixyProducer producer = new PixyProducer(manual, fourPartitions, ProducerConfig.DEFAULT, ProducerMetrics.NONE);
        assertTrue(producer.sendsAtOnce("t"), "a known topic and no buffer meter: nothing to wait for");

        CompletableFuture<ProduceResult> answer = new CompletableFuture<>();
        producer.produceThen(new ProduceRequest("t", MessageKey.of(bytes("bar")), bytes("hello"), List.of()),
                (result, error) -> {
                    if (error != null) {
                        answer.completeExceptionally(error);
                    } else {
                        answer.complete(result);
                    }
                });
        assertFalse(answer.isDone(), "answered when Kafka has it, not before");
        assertEquals(0, producer.asyncPending(), "a sync message is not an async one");
        manual.completeNext();

        assertEquals(2, answer.get(10, TimeUnit.SECONDS).partition());
        producer.close();
        assertFalse(producer.sendsAtOnce("t"), "closing: a produce goes the way that answers shutting down");
    }

    @Test
    void aTopicNotSeenLatelyMayWait() {
        TopicPartitions stale = fourPartitions(topic -> true, topic -> false);
        PixyProducer producer = new PixyProducer(mock, stale, ProducerConfig.DEFAULT, ProducerMetrics.NONE);

        assertFalse(producer.sendsAtOnce("t"));
    }

    @Test
    void failuresAreCountedUnderTheTopicOnlyOnceTheTopicIsKnownToExist() {
        List<String> failures = new java.util.ArrayList<>();
        ProducerMetrics recording = new ProducerMetrics() {
            @Override
            public void produced(String topic, int bytes, long nanos) {
            }

            @Override
            public void failed(String topic, io.kafkapixy.errors.ErrorKind kind) {
                failures.add(topic + "/" + kind);
            }

            @Override
            public void asyncPending(java.util.function.LongSupplier pending) {
            }
        };
        TopicPartitions onlyKnown = fourPartitions("known"::equals, "known"::equals);
        ProducerConfig small = ProducerConfig.DEFAULT.with(ProducerConfig.MAX_MESSAGE_BYTES, 10)
                .with(ProducerConfig.COMPRESSION, ProducerConfig.Compression.NONE)
                .with(ProducerConfig.FLUSH_BYTES, 0)
                .with(ProducerConfig.RETRY_MAX, 1);
        PixyProducer producer = new PixyProducer(mock, onlyKnown, small, recording);
        ProduceRequest tooLarge = new ProduceRequest("known", MessageKey.ABSENT, new byte[11], List.of());

        assertThrows(PixyException.class, () -> producer.produceSync(tooLarge));
        assertThrows(PixyException.class, () -> producer.produceSync(
                new ProduceRequest("made-up-" + System.nanoTime(), MessageKey.ABSENT, new byte[11], List.of())));

        assertEquals(List.of("known/MESSAGE_TOO_LARGE", "/MESSAGE_TOO_LARGE"), failures);
    }

    @Test
    void theGrpcEmptyKeyIsHashedAsEmptyButWrittenAsNull() {
        PixyProducer producer = new PixyProducer(mock, fourPartitions, ProducerConfig.DEFAULT, ProducerMetrics.NONE);
        ProduceResult result = producer.produceSync(
                new ProduceRequest("t", MessageKey.EMPTY_WRITTEN_AS_NULL, bytes("v"), List.of()));

        assertEquals(3, result.partition());
        assertNull(mock.history().getFirst().key());
    }

    @Test
    void anEmptyRestKeyIsWrittenAsAnEmptyKey() {
        PixyProducer producer = new PixyProducer(mock, fourPartitions, ProducerConfig.DEFAULT, ProducerMetrics.NONE);
        producer.produceSync(new ProduceRequest("t", MessageKey.of(new byte[0]), bytes("v"), List.of()));

        assertArrayEquals(new byte[0], mock.history().getFirst().key());
        assertEquals(3, mock.history().getFirst().partition());
    }

    @Test
    void aMessageOverMaxMessageBytesIsRefusedAndNothingIsSent() {
        ProducerConfig small = ProducerConfig.DEFAULT.with(ProducerConfig.MAX_MESSAGE_BYTES, 10)
                .with(ProducerConfig.COMPRESSION, ProducerConfig.Compression.NONE)
                .with(ProducerConfig.FLUSH_BYTES, 0)
                .with(ProducerConfig.RETRY_MAX, 1);
        PixyProducer producer = new PixyProducer(mock, fourPartitions, small, ProducerMetrics.NONE);

        PixyException sync = assertThrows(PixyException.class, () -> producer.produceSync(
                new ProduceRequest("t", MessageKey.ABSENT, new byte[11], List.of())));
        PixyException async = assertThrows(PixyException.class, () -> producer.produceAsync(
                new ProduceRequest("t", MessageKey.ABSENT, new byte[11], List.of())));

        assertEquals(ErrorKind.MESSAGE_TOO_LARGE, sync.kind());
        assertEquals(ErrorKind.MESSAGE_TOO_LARGE, async.kind());
        assertEquals("kafka server: Message was too large, server rejected it to avoid allocation error.",
                sync.getMessage());
        assertTrue(mock.history().isEmpty());
    }

    @Test
    void afterCloseEveryProduceIsRefusedAsShuttingDown() {
        PixyProducer producer = new PixyProducer(mock, fourPartitions, ProducerConfig.DEFAULT, ProducerMetrics.NONE);
        producer.close();
        ProduceRequest rq = new ProduceRequest("t", MessageKey.ABSENT, bytes("v"), List.of());

        PixyException sync = assertThrows(PixyException.class, () -> producer.produceSync(rq));
        PixyException async = assertThrows(PixyException.class, () -> producer.produceAsync(rq));

        assertEquals(ErrorKind.SHUTTING_DOWN, sync.kind());
        assertEquals("service is shutting down", sync.getMessage());
        assertEquals(ErrorKind.SHUTTING_DOWN, async.kind());
    }

    @Test
    void aSyncProduceThatKafkaRejectsForAnUnknownTopicReportsTheOriginalsText() throws Exception {
        MockProducer<byte[], byte[]> manual =
                new MockProducer<>(CLUSTER, false, null, new ByteArraySerializer(), new ByteArraySerializer());
        PixyProducer producer = new PixyProducer(manual, fourPartitions, ProducerConfig.DEFAULT, ProducerMetrics.NONE);
        CompletableFuture<PixyException> failure = CompletableFuture.supplyAsync(() -> assertThrows(
                PixyException.class, () -> producer.produceSync(
                        new ProduceRequest("t", MessageKey.ABSENT, bytes("v"), List.of()))), Background.THREADS);
        Waits.until(Duration.ofSeconds(30), "the send", () -> !manual.history().isEmpty());
        manual.errorNext(new UnknownTopicOrPartitionException("gone"));

        PixyException e = failure.get(30, TimeUnit.SECONDS);
        assertEquals(ErrorKind.PRODUCE_UNKNOWN_TOPIC, e.kind());
        assertEquals("kafka server: Request was for a topic or partition that does not exist on this broker.",
                e.getMessage());
    }

    @Test
    void aMessageThatCannotWaitAndThatKafkaRefusesIsAnsweredWithTheOriginalsTextAndCounted() {
        MockProducer<byte[], byte[]> manual =
                new MockProducer<>(CLUSTER, false, null, new ByteArraySerializer(), new ByteArraySerializer());
        List<String> failures = new java.util.ArrayList<>();
        PixyProducer producer = new PixyProducer(manual, fourPartitions, ProducerConfig.DEFAULT,
                new ProducerMetrics() {
                    @Override
                    public void produced(String topic, int bytes, long nanos) {
                        failures.add("produced " + topic);
                    }

                    @Override
                    public void failed(String topic, ErrorKind kind) {
                        failures.add(topic + "/" + kind);
                    }

                    @Override
                    public void asyncPending(java.util.function.LongSupplier pending) {
                    }
                });
        List<Object> answers = new java.util.ArrayList<>();
        producer.produceThen(new ProduceRequest("t", MessageKey.ABSENT, bytes("v"), List.of()),
                (result, error) -> answers.add(error != null ? error : result));
        assertTrue(answers.isEmpty(), "answered when Kafka has refused it, not before");

        manual.errorNext(new UnknownTopicOrPartitionException("gone"));

        assertEquals(1, answers.size());
        PixyException e = assertInstanceOf(PixyException.class, answers.getFirst());
        assertEquals(ErrorKind.PRODUCE_UNKNOWN_TOPIC, e.kind());
        assertEquals(KafkaTopicPartitions.UNKNOWN_TOPIC_TEXT, e.getMessage());
        assertEquals(List.of("t/" + ErrorKind.PRODUCE_UNKNOWN_TOPIC), failures);
    }

    @Test
    void anAsyncProduceReturnsOnceBufferedAndALaterDeliveryFailureDoesNotReachTheCaller() {
        MockProducer<byte[], byte[]> manual =
                new MockProducer<>(CLUSTER, false, null, new ByteArraySerializer(), new ByteArraySerializer());
        PixyProducer producer = new PixyProducer(manual, fourPartitions, ProducerConfig.DEFAULT, ProducerMetrics.NONE);

        producer.produceAsync(new ProduceRequest("t", MessageKey.ABSENT, bytes("v"), List.of()));

        assertEquals(1, manual.history().size());
        assertTrue(manual.errorNext(new RuntimeException("broker down")));
    }

    @Test
    void anAsyncMessageThatCannotBeBufferedIsRefusedRatherThanAnsweredAsAccepted() {
        MockProducer<byte[], byte[]> failing =
                new MockProducer<>(CLUSTER, true, null, new ByteArraySerializer(), new ByteArraySerializer());
        failing.sendException = new org.apache.kafka.common.errors.TimeoutException("buffer full");
        PixyProducer producer = new PixyProducer(failing, fourPartitions, ProducerConfig.DEFAULT, ProducerMetrics.NONE);

        PixyException e = assertThrows(PixyException.class, () -> producer.produceAsync(
                new ProduceRequest("t", MessageKey.ABSENT, bytes("v"), List.of())));

        assertEquals(ErrorKind.INTERNAL, e.kind());
        assertEquals("buffer full", e.getMessage());
    }

    /** Four partitions for every topic; {@code known} and {@code fresh} say which topics are (see TopicPartitions). */
    private static TopicPartitions fourPartitions(Predicate<String> known, Predicate<String> fresh) {
        return new TopicPartitions() {
            @Override
            public List<org.apache.kafka.common.PartitionInfo> of(String topic) {
                return PartitionChooserTest.partitions(4);
            }

            @Override
            public boolean known(String topic) {
                return known.test(topic);
            }

            @Override
            public boolean fresh(String topic) {
                return fresh.test(topic);
            }
        };
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
