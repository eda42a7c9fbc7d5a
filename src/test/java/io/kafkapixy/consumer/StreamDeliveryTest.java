package io.kafkapixy.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import io.kafkapixy.errors.PixyException;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.kafkapixy.consumer.MemberRig.TOPIC;
import static io.kafkapixy.consumer.MemberRig.tp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A streaming consumer's bookkeeping, on Kafka's mock consumer and a fake clock: credits bound what it is handed,
 * what it holds is its own until acked or nacked, and whatever it leaves comes back at once when it ends. The test's
 * thread is also the member's owning thread; nothing waits in real time.
 */
@Timeout(30)
class StreamDeliveryTest {

    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(10);
    private static final long MAX_CREDITS = 100;

    private final MemberRig rig = new MemberRig(ConsumerSettingsBuilder.fast().ackTimeout(ACK_TIMEOUT).build());
    private final Sink sink = new Sink();
    private final List<String> served = new ArrayList<>();
    private final List<String> rejected = new ArrayList<>();
    private final MessageStream stream = new MessageStream(new MessageStream.Owner() {
        @Override
        public void markServed(String group, String topic, int partition) {
            served.add(topic + "/" + partition);
        }

        @Override
        public boolean ackHeld(String group, String topic, int partition, long offset) {
            return false;
        }

        @Override
        public java.util.concurrent.CompletableFuture<Void> settle(String group, String topic, int partition,
                                                                   long offset, Settlement how) {
            var settled = how == Settlement.REJECT ? rig.state.letters.reject(topic, partition, offset)
                    : rig.state.renew(topic, partition, offset) ? java.util.concurrent.CompletableFuture.<Void>completedFuture(null) : null;
            if (settled == null) {
                return java.util.concurrent.CompletableFuture.failedFuture(PixyException.ackTimeout());
            }
            return settled.thenRun(() -> rejected.add(topic));
        }
    }, MemberRig.GROUP, List.of(TOPIC), MAX_CREDITS, sink);

    StreamDeliveryTest() {
        rig.topic(TOPIC, 1, 0, 0);
        rig.join(tp(0));
        assertTrue(rig.state.streams.attach(stream));
    }

    @Test
    void creditsBoundWhatIsHandedOutAndAGrantOverTheLimitChangesNothing() {
        stream.credit(2);
        rig.fetchable(tp(0), 0, 1, 2);
        rig.loop.step();
        assertEquals(List.of(0L, 1L), sink.offsets());

        assertThrows(PixyException.class, () -> stream.credit(MAX_CREDITS + 1));
        assertEquals(0, locked(stream::credits), "the refused grant left the spent credits as they were");
        stream.credit(1);

        assertEquals(List.of(0L, 1L, 2L), sink.offsets());
        assertEquals(List.of(TOPIC + "/0"), served, "acks of the partition are taken from now on, marked once");
    }

    @Test
    void whatTheStreamHoldsGoesToNoOtherClientUntilItIsAcked() {
        stream.credit(1);
        rig.fetchable(tp(0), 0);
        rig.loop.step();
        WaitingRequest other = rig.request();
        assertFalse(other.result.isDone(), "the one message is held by the stream");
        assertEquals(1, locked(stream::heldCount));

        assertEquals(0, stream.ack(List.of(new MessageStream.Ack(TOPIC, 0, 0))));

        assertEquals(0, locked(stream::heldCount));
        assertEquals(1, rig.state.commits.changedOffsets().get(tp(0)).offset(), "acked, so committable");
        assertEquals(1, stream.ack(List.of(new MessageStream.Ack(TOPIC, 0, 0))), "a second ack is not taken");
    }

    @Test
    void aRejectedMessageIsAckedAndCountedApart() {
        stream.credit(1);
        rig.fetchable(tp(0), 0);
        rig.loop.step();

        assertEquals(0, stream.reject(List.of(new MessageStream.Ack(TOPIC, 0, 0))));

        assertEquals(0, locked(stream::heldCount));
        assertEquals(1, rig.state.commits.changedOffsets().get(tp(0)).offset(), "acked, so committable");
        assertEquals(List.of(TOPIC), rejected);
        assertEquals(1, stream.reject(List.of(new MessageStream.Ack(TOPIC, 0, 0))), "not held any more");
        assertEquals(List.of(TOPIC), rejected, "counted once");
    }

    @Test
    void aMessageTakenButNeverSentComesBackAsTheSameDeliveryWhenTheStreamEnds() {
        sink.canSend = false;
        stream.credit(1);
        rig.fetchable(tp(0), 0);
        rig.loop.step();
        assertEquals(List.of(0L), sink.offsets(), "taken");

        assertEquals(1, stream.close());
        WaitingRequest next = rig.request();

        ConsumedMessage m = next.result.getNow(null);
        assertEquals(0, m.offset());
        assertEquals(1, m.attempt(), "the same delivery: it never reached the client");
    }

    @Test
    void aNackedMessageIsOfferedAgainAfterItsDelayAsARedelivery() {
        stream.credit(1);
        rig.fetchable(tp(0), 0);
        rig.loop.step();

        assertTrue(stream.nack(TOPIC, 0, 0, Duration.ofSeconds(1)));
        WaitingRequest early = rig.request();
        rig.clock.advance(Duration.ofMillis(999));
        rig.loop.step();
        assertFalse(early.result.isDone(), "not before its delay");
        rig.clock.advance(Duration.ofMillis(1));
        rig.loop.step();

        ConsumedMessage m = early.result.getNow(null);
        assertEquals(0, m.offset());
        assertEquals(2, m.attempt());
        assertFalse(stream.nack(TOPIC, 0, 0, Duration.ZERO), "no longer held by the stream");
        assertThrows(PixyException.class, () -> stream.nack(TOPIC, 0, 0, ACK_TIMEOUT.plusMillis(1)),
                "a delay over ack_timeout would hold a revoked partition");
    }

    @Test
    void anAckFromAnotherClientReleasesWhatTheStreamHeld() {
        stream.credit(1);
        rig.fetchable(tp(0), 0);
        rig.loop.step();

        assertTrue(rig.state.ack(TOPIC, 0, 0), "the unary Ack of the same group");

        assertEquals(0, locked(stream::heldCount));
        assertFalse(stream.nack(TOPIC, 0, 0, Duration.ZERO), "nothing left to give back");
        assertEquals(0, stream.close(), "nor at its end");
    }

    @Test
    void theStreamsEndGivesBackWhatItHeldAtOnceNotAfterAckTimeout() {
        stream.credit(2);
        rig.fetchable(tp(0), 0, 1);
        rig.loop.step();

        assertEquals(2, stream.close());
        assertEquals(0, stream.close(), "ended once");
        WaitingRequest first = rig.request();
        WaitingRequest second = rig.request();

        assertEquals(0, first.result.getNow(null).offset());
        assertEquals(1, second.result.getNow(null).offset());
        assertEquals(2, first.result.getNow(null).attempt(), "it was sent: a redelivery");
        assertNull(sink.endedBy, "the client ended it: nothing to tell it");
    }

    @Test
    void whenTheMemberShutsDownTheStreamGetsNothingMoreButItsAcksAreStillTaken() {
        stream.credit(5);
        rig.fetchable(tp(0), 0);
        rig.loop.step();

        rig.state.shutdown();
        rig.fetchable(tp(0), 1);
        rig.loop.step();
        assertEquals(List.of(0L), sink.offsets(), "draining: nothing more");

        assertEquals(0, stream.ack(List.of(new MessageStream.Ack(TOPIC, 0, 0))));
        assertEquals(1, rig.state.commits.positions().get(tp(0)).offset());
    }

    @Test
    void whenTheProxyEndsTheStreamItsClientIsToldHowManyCameBack() {
        stream.credit(1);
        rig.fetchable(tp(0), 0);
        rig.loop.step();

        rig.state.close(PixyException.shuttingDown());

        assertEquals(1, sink.givenBack);
        assertTrue(sink.endedBy != null);
    }

    private <T> T locked(Supplier<T> read) {
        return rig.state.locked(read);
    }

    /** What the transport of a stream would be: records deliveries; can be made to fail its sends. */
    private static final class Sink implements MessageStream.Sink {

        final List<ConsumedMessage> delivered = new ArrayList<>();
        boolean canSend = true;
        PixyException endedBy;
        int givenBack = -1;

        @Override
        public boolean deliver(ConsumedMessage message) {
            delivered.add(message);
            return false;
        }

        @Override
        public boolean flush() {
            return canSend;
        }

        @Override
        public boolean ready() {
            return true;
        }

        @Override
        public void end(PixyException reason, int givenBack) {
            this.endedBy = reason;
            this.givenBack = givenBack;
        }

        List<Long> offsets() {
            return delivered.stream().map(ConsumedMessage::offset).toList();
        }
    }
}
