package io.kafkapixy.consumer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.kafkapixy.errors.PixyException;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.FakeDeadLetters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.kafkapixy.consumer.MemberRig.TOPIC;
import static io.kafkapixy.consumer.MemberRig.tp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A classic group member's renewals and dead letters, over Kafka's MockConsumer and a fake clock: a renewal moves a
 * held message's deadline and spends no retry; a message given up on (retries run out, or rejected) is settled only
 * once its dead letter is written, and a write that fails leaves it unsettled.
 */
@Timeout(30)
class RenewAndDeadLetterTest {

    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(10);

    private final FakeDeadLetters deadLetters = new FakeDeadLetters();

    /** A member holding offsets 0..n-1 of partition 0; the returned request took offset 0. */
    private MemberRig joined(MemberRig rig, long... offsets) {
        rig.topic(TOPIC, 1, 0, 0);
        rig.join(tp(0));
        rig.fetchable(tp(0), offsets);
        rig.loop.step();
        return rig;
    }

    private MemberRig member(int maxRetries, boolean lettering) {
        var config = ConsumerSettingsBuilder.fast().ackTimeout(ACK_TIMEOUT).maxRetries(maxRetries)
                .longPollingTimeout(Duration.ofMinutes(5)).build();
        return joined(new MemberRig(config, lettering ? new DeadLettering(deadLetters) : DeadLettering.NONE), 0);
    }

    private static ConsumedMessage take(MemberRig rig) {
        WaitingRequest r = rig.request();
        assertTrue(r.result.isDone(), "a message was ready");
        return r.result.getNow(null);
    }

    private static long committed(MemberRig rig) {
        rig.clock.advance(rig.config.offsetsCommitInterval());
        rig.loop.step();
        return rig.commits.get(tp(0)).offset();
    }

    @Test
    void aRenewalRestartsTheAckTimeoutFromNowAndSpendsNoRetry() {
        MemberRig rig = member(1, false);
        assertEquals(1, take(rig).attempt());

        rig.clock.advance(ACK_TIMEOUT.minusSeconds(1));
        assertTrue(rig.state.renew(TOPIC, 0, 0));
        rig.clock.advance(ACK_TIMEOUT.minusSeconds(1));
        WaitingRequest other = rig.request();
        rig.loop.step();
        assertFalse(other.result.isDone(), "past the first deadline, within the renewed one: still its client's");

        rig.clock.advance(Duration.ofSeconds(2));
        rig.loop.step();
        ConsumedMessage again = other.result.getNow(null);
        assertEquals(0, again.offset());
        assertEquals(2, again.attempt(), "the first redelivery: the renewal spent no retry (max_retries 1)");
        assertEquals(1, rig.meters.renewals.get());
        assertEquals(0, rig.meters.drops.get());
    }

    @Test
    void onlyAMessageOutWithAClientIsRenewed() {
        MemberRig rig = member(-1, false);
        take(rig);
        rig.clock.advance(ACK_TIMEOUT.plusSeconds(1));
        rig.loop.step();
        assertFalse(rig.state.renew(TOPIC, 0, 0), "its ack_timeout ran out: it waits to be offered again");

        assertEquals(0, take(rig).offset());
        assertTrue(rig.state.ack(TOPIC, 0, 0));
        assertFalse(rig.state.renew(TOPIC, 0, 0), "acked");
        assertFalse(rig.state.renew(TOPIC, 1, 0), "a partition not held here");
        assertEquals(0, rig.meters.renewals.get());
    }

    @Test
    void aMessageWhoseRetriesRanOutIsCommittedPastOnlyOnceItsDeadLetterIsWritten() {
        MemberRig rig = member(0, true);
        take(rig);
        rig.clock.advance(ACK_TIMEOUT.plusSeconds(1));
        rig.loop.step();

        FakeDeadLetters.Write write = deadLetters.awaitWrite(0);
        assertEquals(DeadLetter.Reason.RETRIES_EXHAUSTED, write.letter().reason());
        assertEquals(1, write.letter().deliveries());
        assertEquals(MemberRig.GROUP, write.letter().group());
        assertEquals("v0", new String(write.letter().message().value(), StandardCharsets.UTF_8));
        WaitingRequest waiting = rig.request();
        assertEquals(0, committed(rig), "not settled while the write is out");
        assertFalse(waiting.result.isDone(), "and offered to nobody");
        assertFalse(rig.state.ack(TOPIC, 0, 0), "a late ack does not take it: its dead letter settles it");
        assertFalse(rig.state.renew(TOPIC, 0, 0));
        assertNull(rig.state.letters.reject(TOPIC, 0, 0));

        deadLetters.accept(0);
        MemberRig.await("settled", () -> rig.meters.deadLetters.contains(DeadLetter.Reason.RETRIES_EXHAUSTED));
        assertEquals(1, committed(rig));
        assertEquals(1, deadLetters.writes.size(), "written once");
        assertFalse(waiting.result.isDone());
    }

    @Test
    void aDeadLetterTheTopicRefusedLeavesTheMessageUnsettledAndIsWrittenAgainLater() {
        MemberRig rig = member(0, true);
        take(rig);
        rig.clock.advance(ACK_TIMEOUT.plusSeconds(1));
        rig.loop.step();

        deadLetters.refuse(0);
        MemberRig.await("refusal taken", () -> rig.meters.deadLetterFailures.get() == 1);
        WaitingRequest waiting = rig.request();
        assertEquals(0, committed(rig), "nothing settled");
        assertFalse(waiting.result.isDone(), "its retries have run out: no client gets it again");
        assertFalse(rig.state.renew(TOPIC, 0, 0), "nor renews or rejects it while its write waits to be tried again");
        assertNull(rig.state.letters.reject(TOPIC, 0, 0));
        assertFalse(rig.state.ack(TOPIC, 0, 0));

        rig.clock.advance(DeadLettering.RETRY_DELAY.plusMillis(1));
        rig.loop.step();
        FakeDeadLetters.Write again = deadLetters.awaitWrite(1);
        assertEquals(0, again.letter().message().offset());
        assertEquals(1, again.letter().deliveries(), "the same letter");
        deadLetters.accept(1);
        MemberRig.await("settled", () -> !rig.meters.deadLetters.isEmpty());
        assertEquals(1, committed(rig));
        assertFalse(waiting.result.isDone());
    }

    @Test
    void aRejectIsAnsweredOnceTheDeadLetterIsWrittenAndARefusedOneLeavesTheMessageWithItsClient() throws Exception {
        MemberRig rig = member(-1, true);
        take(rig);

        CompletableFuture<Void> refused = rig.state.letters.reject(TOPIC, 0, 0);
        assertEquals(DeadLetter.Reason.REJECTED, deadLetters.awaitWrite(0).letter().reason());
        assertFalse(refused.isDone(), "waits for the write");
        deadLetters.refuse(0);
        ExecutionException e = assertThrows(ExecutionException.class, () -> refused.get(10, TimeUnit.SECONDS));
        assertInstanceOf(PixyException.class, e.getCause());
        assertEquals("the dead-letter topic refused the message: topic refused", e.getCause().getMessage());
        assertEquals(0, committed(rig));

        CompletableFuture<Void> rejected = rig.state.letters.reject(TOPIC, 0, 0);
        assertTrue(rejected != null, "out with its client again");
        deadLetters.accept(1);
        rejected.get(10, TimeUnit.SECONDS);
        assertEquals(1, committed(rig));
        assertEquals(1, rig.meters.rejects.get());
        assertNull(rig.state.letters.reject(TOPIC, 0, 0), "settled: a second reject takes nothing");
    }

    @Test
    void aMessageWhoseAckTimeoutRanOutIsNoLongerItsClientsToRenewOrReject() {
        MemberRig rig = member(-1, true);
        take(rig);
        rig.clock.advance(ACK_TIMEOUT.plusSeconds(1));
        rig.loop.step();

        assertFalse(rig.state.renew(TOPIC, 0, 0));
        assertNull(rig.state.letters.reject(TOPIC, 0, 0), "due again, waiting for a request");
        ConsumedMessage again = take(rig);
        assertEquals(2, again.attempt());
        rig.state.letters.reject(TOPIC, 0, 0);
        assertEquals(2, deadLetters.awaitWrite(0).letter().deliveries(), "rejected at its second delivery");
    }

    @Test
    void aPartitionOnItsWayToAnotherMemberTakesNoRenewal() {
        PartitionState p = new PartitionState(tp(0), new io.kafkapixy.offset.OffsetTracker(0, "", ACK_TIMEOUT),
                null, 0);
        p.addFetched(new org.apache.kafka.clients.consumer.ConsumerRecord<>(TOPIC, 0, 0L, null, new byte[0]));
        assertEquals(0, p.next(MemberRig.T0, 300, -1).offset());
        assertTrue(p.renew(0, MemberRig.T0.plus(ACK_TIMEOUT)));

        p.startRevoking();
        assertFalse(p.renew(0, MemberRig.T0.plus(ACK_TIMEOUT.multipliedBy(2))),
                "its wait for acks would never end while a client kept renewing");
    }

    @Test
    void aRejectOfAMessageNotOutWithAClientSettlesNothing() {
        for (boolean lettering : new boolean[]{false, true}) {
            MemberRig rig = member(-1, lettering);
            rig.fetchable(tp(0), 1);
            rig.loop.step();
            assertNull(rig.state.letters.reject(TOPIC, 0, 1), "fetched, never handed out");
            assertNull(rig.state.letters.reject(TOPIC, 0, 7), "never fetched");
            assertEquals(0, committed(rig));
            assertEquals(0, deadLetters.writes.size());
        }
    }

    @Test
    void withoutADeadLetterTopicARejectedMessageIsAckedAndOneWhoseRetriesRanOutDropped() {
        MemberRig rig = member(0, false);
        rig.fetchable(tp(0), 1);
        rig.loop.step();
        take(rig);
        assertEquals(1, take(rig).offset());
        CompletableFuture<Void> rejected = rig.state.letters.reject(TOPIC, 0, 0);
        assertTrue(rejected.isDone());
        rig.clock.advance(ACK_TIMEOUT.plusSeconds(1));
        rig.loop.step();
        assertEquals(2, committed(rig));
        assertEquals(1, rig.meters.rejects.get());
        assertEquals(1, rig.meters.drops.get());
    }
}
