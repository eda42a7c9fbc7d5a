package io.kafkapixy.consumer;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.kafkapixy.errors.PixyException;
import io.kafkapixy.testing.FakeDeadLetters;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What a dead letter carries, and the one flow both kinds of group give up on a message by. */
class DeadLetteringTest {

    private static final ConsumedMessage MESSAGE = new ConsumedMessage("orders", 3, 42,
            "k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8),
            List.of(new RecordHeader("trace", "t1".getBytes(StandardCharsets.UTF_8))), 2);
    private static final DeadLetter LETTER = new DeadLetter("billing", MESSAGE, DeadLetter.Reason.RETRIES_EXHAUSTED, 5,
            Instant.parse("2026-12-07T02:41:07.123Z"));

    private static ConsumerMetrics.Topic topic(MemberRig.Meters meters) {
        return meters.topic("billing", "orders", "kafka");
    }

    @Test
    void aDeadLetterCarriesTheMessagesHeadersThenWhereItCameFromAndWhyAsText() {
        List<String> headers = new ArrayList<>();
        for (Header h : LETTER.headers()) {
            headers.add(h.key() + "=" + new String(h.value(), StandardCharsets.UTF_8));
        }
        assertEquals(List.of("trace=t1", "kafkapixy-dlt-original-topic=orders", "kafkapixy-dlt-original-partition=3",
                "kafkapixy-dlt-original-offset=42", "kafkapixy-dlt-original-group=billing",
                "kafkapixy-dlt-reason=retries_exhausted", "kafkapixy-dlt-deliveries=5",
                "kafkapixy-dlt-time=2026-12-07T02:41:07.123Z"), headers);
    }

    @Test
    void theTopicsNameReplacesEveryTopicPlaceholder() {
        assertEquals("orders.dlt", DeadLetter.topicName("{topic}.dlt", "orders"));
        assertEquals("dlt-orders-orders", DeadLetter.topicName("dlt-{topic}-{topic}", "orders"));
        assertEquals("all-dead", DeadLetter.topicName("all-dead", "orders"));
    }

    @Test
    void aWrittenLetterSettlesItsMessageOnceAndIsCounted() throws Exception {
        FakeDeadLetters writer = new FakeDeadLetters();
        Held held = new Held();
        MemberRig.Meters meters = new MemberRig.Meters();
        CompletableFuture<Void> settled = new DeadLettering(writer).send(LETTER, topic(meters), held);

        assertFalse(settled.isDone());
        assertEquals(0, held.written.get(), "nothing settled before the brokers have it");
        writer.accept(0);
        settled.get(10, TimeUnit.SECONDS);
        assertEquals(1, held.written.get());
        assertEquals(0, held.notWritten.get());
        assertEquals(List.of(DeadLetter.Reason.RETRIES_EXHAUSTED), List.copyOf(meters.deadLetters));
    }

    @Test
    void aRefusedLetterPutsItsMessageBackAndSaysWhy() {
        FakeDeadLetters writer = new FakeDeadLetters();
        Held held = new Held();
        MemberRig.Meters meters = new MemberRig.Meters();
        CompletableFuture<Void> settled = new DeadLettering(writer).send(LETTER, topic(meters), held);
        writer.refuse(0);

        ExecutionException e = assertThrows(ExecutionException.class, () -> settled.get(10, TimeUnit.SECONDS));
        assertInstanceOf(PixyException.class, e.getCause());
        assertEquals("the dead-letter topic refused the message: topic refused", e.getCause().getMessage());
        assertEquals(0, held.written.get());
        assertEquals(1, held.notWritten.get());
        assertEquals(1, meters.deadLetterFailures.get());
    }

    @Test
    void aWriterThatThrowsIsARefusal() {
        DeadLetters throwing = new DeadLetters() {
            @Override
            public boolean enabled() {
                return true;
            }

            @Override
            public CompletableFuture<Void> write(DeadLetter letter) {
                throw new IllegalStateException("producer closed");
            }
        };
        Held held = new Held();
        CompletableFuture<Void> settled = new DeadLettering(throwing).send(LETTER, ConsumerMetrics.Topic.NONE, held);
        assertThrows(ExecutionException.class, () -> settled.get(10, TimeUnit.SECONDS));
        assertEquals(1, held.notWritten.get());
    }

    private static final class Held implements DeadLettering.Held {
        final AtomicInteger written = new AtomicInteger();
        final AtomicInteger notWritten = new AtomicInteger();

        @Override
        public CompletableFuture<Void> written() {
            written.incrementAndGet();
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void notWritten() {
            notWritten.incrementAndGet();
        }
    }
}
