package io.kafkapixy.consumer;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.kafkapixy.consumer.MemberRig.tp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A message is handed only to a request whose client can still take it, counts as delivered (and, with auto-ack, as
 * acked) only when its transport says the answer went out, and comes back at once when the client turns out to be
 * gone: never acked for a client that did not get it, never lost. Over Kafka's MockConsumer and a fake clock.
 */
@Timeout(30)
class MessageHandOutTest {

    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(10);

    private static MemberRig joinedWith(long... offsets) {
        MemberRig rig = new MemberRig(ConsumerSettingsBuilder.fast().ackTimeout(ACK_TIMEOUT).build());
        rig.topic(MemberRig.TOPIC, 1, 0, 0);
        rig.request();
        rig.join(tp(0));
        rig.fetchable(tp(0), offsets);
        rig.loop.step();
        return rig;
    }

    /** A request parked now; the first one (made by {@link #joinedWith}) took offset 0 already. */
    private static PendingConsume park(MemberRig rig, boolean autoAck, Receiver receiver) {
        return new PendingConsume(rig.state, MemberRig.TOPIC,
                rig.state.park(MemberRig.TOPIC, rig.clock.instant(), autoAck, receiver));
    }

    private static ConsumedMessage message(PendingConsume p) {
        return p.result().getNow(null);
    }

    private void commitNow(MemberRig rig) {
        rig.clock.advance(rig.config.offsetsCommitInterval());
        rig.loop.step();
    }

    @Test
    void anAutoAckMessageCountsAsAckedOnlyOnceItsAnswerWasDelivered() {
        MemberRig rig = joinedWith(0, 1);
        rig.state.ack(MemberRig.TOPIC, 0, 0);

        PendingConsume auto = park(rig, true, Receiver.ANY);
        assertEquals(1, message(auto).offset());
        commitNow(rig);
        assertEquals(1, rig.commits.get(tp(0)).offset(), "handed over, not acked yet");

        auto.delivered();
        commitNow(rig);
        assertEquals(2, rig.commits.get(tp(0)).offset());
        assertEquals(2, rig.meters.acks.get());
    }

    @Test
    void anAutoAckMessageWhoseClientIsGoneIsOfferedAgainAtOnceAsTheSameDelivery() {
        MemberRig rig = joinedWith(0, 1);
        rig.state.ack(MemberRig.TOPIC, 0, 0);
        PendingConsume gone = park(rig, true, Receiver.ANY);
        assertEquals(1, message(gone).offset());

        gone.cancel();
        PendingConsume next = park(rig, true, Receiver.ANY);

        assertEquals(1, message(next).offset(), "the same message, with no ack_timeout to wait for");
        assertEquals(1, message(next).attempt(), "not counted as a redelivery");
        assertEquals(1, rig.meters.returns.get());
        assertEquals(0, rig.meters.redeliveries.get());
        next.delivered();
        commitNow(rig);
        assertEquals(2, rig.commits.get(tp(0)).offset());
    }

    @Test
    void aCancelAfterTheAnswerWasDeliveredChangesNothing() {
        MemberRig rig = joinedWith(0, 1);
        rig.state.ack(MemberRig.TOPIC, 0, 0);
        PendingConsume auto = park(rig, true, Receiver.ANY);

        auto.delivered();
        auto.cancel();

        PendingConsume next = park(rig, false, Receiver.ANY);
        assertFalse(next.result().isDone(), "offset 1 was delivered and acked: nothing is left to offer");
        assertEquals(0, rig.meters.returns.get());
        commitNow(rig);
        assertEquals(2, rig.commits.get(tp(0)).offset());
    }

    @Test
    void anExplicitAckMessageWhoseClientIsGoneComesBackWithoutWaitingForItsAckTimeout() {
        MemberRig rig = joinedWith(0, 1);
        rig.state.ack(MemberRig.TOPIC, 0, 0);
        PendingConsume gone = park(rig, false, Receiver.ANY);
        assertEquals(1, message(gone).offset());

        gone.cancel();

        PendingConsume next = park(rig, false, Receiver.ANY);
        assertEquals(1, message(next).offset());
        next.delivered();
        commitNow(rig);
        assertEquals(1, rig.commits.get(tp(0)).offset(), "delivered, but an explicit-ack message waits for its ack");
    }

    @Test
    void noMessageIsHandedToARequestThatCannotReceiveItTheNextRequestGetsIt() {
        MemberRig rig = joinedWith(0);
        rig.state.ack(MemberRig.TOPIC, 0, 0);
        AtomicBoolean canReceive = new AtomicBoolean(true);
        PendingConsume late = park(rig, true, canReceive::get);
        canReceive.set(false);

        rig.fetchable(tp(0), 1);
        rig.loop.step();
        assertFalse(late.result().isDone(), "its client could not take the message");

        PendingConsume next = park(rig, true, Receiver.ANY);
        assertEquals(1, message(next).offset());

        late.cancel();
        assertTrue(late.result().isCompletedExceptionally(), "it leaves the queue when its call ends");
        assertEquals(0, rig.meters.returns.get());
    }

    @Test
    void aRequestThatCannotReceiveStillGetsItsLongPollTimeout() {
        MemberRig rig = joinedWith(0);
        rig.state.ack(MemberRig.TOPIC, 0, 0);
        PendingConsume never = park(rig, true, () -> false);

        rig.clock.advance(rig.config.longPollingTimeout());
        rig.fetchable(tp(0), 1);
        rig.loop.step();

        assertEquals(ErrorKind.LONG_POLL_TIMEOUT,
                PendingConsume.failure(never.result().handle((m, e) -> e).join()).kind());
    }

    @Test
    void aMessageHandedOverWhileTheCancelWasOnItsWayComesBack() {
        MemberRig rig = joinedWith(0, 1);
        rig.state.ack(MemberRig.TOPIC, 0, 0);
        // the client went away as the message was handed over: the cancel finds the message already there
        PendingConsume raced = park(rig, true, Receiver.ANY);
        assertTrue(raced.result().isDone());

        raced.cancel();
        raced.delivered();

        assertEquals(1, rig.meters.returns.get());
        PendingConsume next = park(rig, true, Receiver.ANY);
        assertEquals(1, message(next).offset(), "the late delivered() does not ack what came back");
    }
}
