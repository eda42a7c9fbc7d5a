package io.kafkapixy.consumer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import io.kafkapixy.offset.store.Committed;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.kafkapixy.consumer.MemberRig.offset;
import static io.kafkapixy.consumer.MemberRig.tp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A group member's life on its owning thread: joining, serving, pausing, committing, expiring and leaving, over Kafka's
 * MockConsumer and a fake clock, one poll at a time.
 */
@Timeout(30)
class MemberLoopTest {

    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(10);

    private static MemberRig rig(ConsumerSettingsBuilder settings) {
        MemberRig rig = new MemberRig(settings.build());
        rig.topic(MemberRig.TOPIC, 2, 0, 0);
        return rig;
    }

    private static ConsumerSettingsBuilder settings() {
        return ConsumerSettingsBuilder.fast().ackTimeout(ACK_TIMEOUT);
    }

    @Test
    void theFirstRequestSubscribesAndIsServedFromTheAssignedPartitions() {
        MemberRig rig = rig(settings());
        WaitingRequest r = rig.request();

        rig.join(tp(0), tp(1));
        assertEquals(Set.of(MemberRig.TOPIC), rig.kafka.subscription());
        rig.fetchable(tp(1), 0);
        rig.loop.step();

        ConsumedMessage m = r.result.getNow(null);
        assertEquals(1, m.partition());
        assertEquals(0, m.offset());
        assertEquals("v0", new String(m.value(), StandardCharsets.UTF_8));
    }

    @Test
    void whileTheServingGateIsShutNothingIsHandedOutAndWhenItOpensTheWaitingRequestsAreServed() {
        MemberRig rig = rig(settings());
        rig.join(tp(0));
        java.util.concurrent.atomic.AtomicBoolean open = new java.util.concurrent.atomic.AtomicBoolean(false);
        rig.state.guardWith(open::get);
        WaitingRequest r = rig.request();
        rig.fetchable(tp(0), 0);
        rig.loop.step();
        assertFalse(r.result.isDone(), "fetched, but the gate is shut");
        WaitingRequest later = rig.request();
        assertFalse(later.result.isDone(), "a new request is not served either");

        open.set(true);
        rig.state.gateOpened();

        assertEquals(0, offset(r));
        assertFalse(later.result.isDone(), "one message, one request: the oldest");
    }

    @Test
    void afterTheProcessStoodStillNothingIsHandedOutOrCommittedUntilTheGroupHasTakenACommitFromThisMember() {
        MemberRig rig = rig(settings());
        rig.join(tp(0));
        WaitingRequest first = rig.request();
        rig.fetchable(tp(0), 0, 1);
        rig.loop.step();
        assertEquals(0, offset(first));
        assertTrue(rig.state.ack(MemberRig.TOPIC, 0, 0));
        long committedBefore = committed(rig);
        WaitingRequest r = rig.request();
        assertEquals(1, offset(r));
        WaitingRequest next = rig.request();
        rig.fetchable(tp(0), 2);

        rig.nanos.addAndGet(Duration.ofSeconds(30).toNanos());
        rig.clock.advance(Duration.ofMillis(500)); // a commit is due
        rig.kafka.rebalancesInProgress = 1;
        rig.loop.step();
        assertFalse(next.result.isDone(), "stood still, pause not counted yet");
        assertEquals(committedBefore, committed(rig), "the ack is not committed: the partition may be another's");
        rig.pauses.tick();
        rig.loop.step();
        assertFalse(next.result.isDone(), "the commit that would confirm the membership was refused");

        rig.loop.step();

        assertEquals(2, offset(next));
        assertEquals(1, committed(rig), "confirmed by committing the current offsets");
    }

    private static long committed(MemberRig rig) {
        Committed c = rig.commits.get(tp(0));
        return c == null ? -1 : c.offset();
    }

    @Test
    void aPartitionStartsAtItsCommittedOffsetAndSkipsWhatItsSparseAcksSay() {
        MemberRig rig = rig(settings());
        rig.kafka.updateEndOffsets(java.util.Map.of(tp(0), 14L));
        // committed 10 with 11..12 acked ("BC": gap 1, run 2)
        rig.commits.put(tp(0), new Committed(10, "BC"));
        WaitingRequest first = rig.request();
        rig.join(tp(0));
        rig.fetchable(tp(0), 10, 11, 12, 13);
        rig.loop.step();
        WaitingRequest second = rig.request();

        assertEquals(10, offset(first));
        assertEquals(13, offset(second));
    }

    @Test
    void acksAreCommittedEveryCommitIntervalWithTheSparseAcksInTheMetadata() {
        MemberRig rig = rig(settings());
        rig.join(tp(0));
        rig.fetchable(tp(0), 0, 1, 2);
        rig.loop.step();
        for (int i = 0; i < 3; i++) {
            assertEquals(i, offset(rig.request()));
        }
        rig.state.ack(MemberRig.TOPIC, 0, 0);
        rig.state.ack(MemberRig.TOPIC, 0, 2);

        rig.clock.advance(rig.config.offsetsCommitInterval());
        rig.loop.step();
        Committed sparse = rig.commits.get(tp(0));
        assertEquals(1, sparse.offset());
        assertNotEquals("", sparse.metadata());

        rig.state.ack(MemberRig.TOPIC, 0, 1);
        rig.clock.advance(rig.config.offsetsCommitInterval());
        rig.loop.step();
        assertEquals(new Committed(3, ""), rig.commits.get(tp(0)));
    }

    @Test
    void aFailedCommitIsSentAgainAtTheNextInterval() {
        MemberRig rig = rig(settings());
        rig.join(tp(0));
        rig.fetchable(tp(0), 0);
        rig.loop.step();
        rig.state.ack(MemberRig.TOPIC, 0, offset(rig.request()));

        rig.kafka.failCommits = true;
        rig.clock.advance(rig.config.offsetsCommitInterval());
        rig.loop.step();
        assertEquals(0, rig.commits.get(tp(0)).offset(), "still where the new group started");

        rig.kafka.failCommits = false;
        rig.clock.advance(rig.config.offsetsCommitInterval());
        rig.loop.step();
        assertEquals(1, rig.commits.get(tp(0)).offset());
    }

    @Test
    void aFullFetchBufferPausesThePartitionAndServingFromItResumesIt() {
        MemberRig rig = rig(settings().channelBufferSize(2));
        rig.join(tp(0));
        rig.fetchable(tp(0), 0, 1, 2);
        rig.loop.step();
        assertEquals(Set.of(tp(0)), rig.kafka.paused());

        rig.request();
        rig.request();
        rig.loop.step();

        assertEquals(Set.of(), rig.kafka.paused());
    }

    @Test
    void withEveryPartitionPausedThePollWaitsForNothingInKafka() {
        MemberRig rig = rig(settings().channelBufferSize(2));
        rig.join(tp(0), tp(1));
        assertEquals(MemberLoop.POLL_INTERVAL, rig.kafka.lastPollTimeout());

        rig.fetchable(tp(0), 0, 1, 2);
        rig.loop.step();
        rig.loop.step();
        assertEquals(MemberLoop.POLL_INTERVAL, rig.kafka.lastPollTimeout(), "partition 1 can still fetch");

        rig.fetchable(tp(1), 0, 1, 2);
        rig.loop.step();
        rig.loop.step();
        assertEquals(Duration.ZERO, rig.kafka.lastPollTimeout(), "all are full: nothing to wait for in Kafka");
    }

    @Test
    void withEveryPartitionPausedTheLoopIsWokenAsSoonAsRequestsEmptyABuffer() throws Exception {
        MemberRig rig = rig(settings().channelBufferSize(2));
        rig.join(tp(0));
        rig.fetchable(tp(0), 0, 1, 2);
        rig.loop.step();
        assertEquals(Set.of(tp(0)), rig.kafka.paused());

        Thread waiting = Thread.ofVirtual().start(() -> rig.state.fetches.awaitRefill(Duration.ofMinutes(10)));
        MemberRig.await("the loop waits for a buffer to empty", rig.state.fetches::awaitingRefill);
        List<Long> served = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            served.add(offset(rig.request()));
        }

        assertTrue(waiting.join(Duration.ofSeconds(5)), "woken by the request that emptied the buffer");
        assertEquals(List.of(0L, 1L, 2L), served);
        rig.loop.step();
        assertEquals(Set.of(), rig.kafka.paused());
    }

    @Test
    void morePendingOffersThanMaxPendingMessagesPauseThePartitionUntilAcked() {
        MemberRig rig = rig(settings().maxPendingMessages(1));
        rig.join(tp(0));
        rig.fetchable(tp(0), 0, 1, 2);
        rig.loop.step();
        long a = offset(rig.request());
        long b = offset(rig.request());
        WaitingRequest third = rig.request();
        rig.loop.step();
        assertFalse(third.result.isDone(), "no more than max_pending_messages + 1 unacked");
        assertEquals(Set.of(tp(0)), rig.kafka.paused());

        rig.state.ack(MemberRig.TOPIC, 0, a);
        rig.state.ack(MemberRig.TOPIC, 0, b);
        rig.loop.step();

        assertEquals(2, offset(third));
        assertEquals(Set.of(), rig.kafka.paused());
    }

    @Test
    void anOfferNotAckedWithinAckTimeoutIsOfferedAgain() {
        MemberRig rig = rig(settings());
        rig.join(tp(0));
        rig.fetchable(tp(0), 0, 1);
        rig.loop.step();
        assertEquals(0, offset(rig.request()));

        rig.clock.advance(ACK_TIMEOUT.plusMillis(1));
        rig.loop.step();

        assertEquals(0, offset(rig.request()), "the overdue offer comes before new messages");
        assertEquals(1, offset(rig.request()));
        assertEquals(1, rig.meters.redeliveries.get());
    }

    @Test
    void anOfferRetriedMoreThanMaxRetriesIsDroppedAsIfAcked() {
        MemberRig rig = rig(settings().maxRetries(0));
        rig.join(tp(0));
        rig.fetchable(tp(0), 0);
        rig.loop.step();
        assertEquals(0, offset(rig.request()));

        rig.clock.advance(ACK_TIMEOUT.plusMillis(1));
        rig.loop.step();
        rig.clock.advance(rig.config.offsetsCommitInterval());
        rig.loop.step();

        assertEquals(1, rig.meters.drops.get());
        assertEquals(1, rig.commits.get(tp(0)).offset());
    }

    @Test
    void aRequestStillWaitingAtItsDeadlineIsAnsweredLongPollingTimeout() {
        MemberRig rig = rig(settings());
        WaitingRequest r = rig.request();
        rig.join(tp(0));

        rig.clock.advance(rig.config.longPollingTimeout());
        rig.loop.step();

        ExecutionException e = assertThrows(ExecutionException.class, r.result::get);
        assertEquals(ErrorKind.LONG_POLL_TIMEOUT, ((PixyException) e.getCause()).kind());
    }

    @Test
    void moreWaitingRequestsThanChannelBufferSizePlusOneAreRefused() {
        MemberRig rig = rig(settings().channelBufferSize(1));
        rig.request();
        rig.request();

        PixyException e = assertThrows(PixyException.class, rig::request);
        assertEquals(ErrorKind.TOO_MANY_REQUESTS, e.kind());
    }

    @Test
    void aTopicNobodyAsksForExpiresAndTheMemberCommitsAndLeaves() {
        MemberRig rig = rig(settings());
        rig.join(tp(0));
        rig.fetchable(tp(0), 0);
        rig.loop.step();
        rig.state.ack(MemberRig.TOPIC, 0, offset(rig.request()));

        rig.clock.advance(rig.config.subscriptionTimeout());
        assertTrue(rig.loop.step(), "the topic expires in this step");
        assertFalse(rig.loop.step(), "no topic is wanted: leave");
        rig.loop.leave(PixyException.shuttingDown());

        assertEquals(1, rig.commits.get(tp(0)).offset());
        assertTrue(rig.kafka.closed());
        assertNull(rig.request(), "a leaving member sends requests to a new one");
    }

    @Test
    void offsetsThatCannotBeReadYetKeepThePartitionPausedUntilTheyCan() {
        MemberRig rig = rig(settings());
        rig.failOffsetReads.set(1);
        WaitingRequest r = rig.request();
        rig.join(tp(0));
        assertEquals(Set.of(tp(0)), rig.kafka.paused());

        rig.fetchable(tp(0), 0);
        rig.loop.step();
        assertEquals(Set.of(), rig.kafka.paused());
        rig.loop.step();

        assertEquals(0, offset(r));
    }

    @Test
    void aLostPartitionIsNotCommittedAndTakesNoMoreAcks() {
        MemberRig rig = rig(settings());
        rig.join(tp(0));
        rig.fetchable(tp(0), 0);
        rig.loop.step();
        long offered = offset(rig.request());

        rig.kafka.schedulePollTask(() -> rig.kafka.losePartitions(List.of(tp(0))));
        rig.loop.step();

        assertFalse(rig.state.ack(MemberRig.TOPIC, 0, offered));
        assertEquals(0, rig.commits.get(tp(0)).offset(), "still where the new group started");
    }

    @Test
    void leavingRetriesTheFinalCommitWhileARebalanceIsInProgress() {
        MemberRig rig = rig(settings());
        rig.join(tp(0));
        rig.fetchable(tp(0), 0);
        rig.loop.step();
        rig.state.ack(MemberRig.TOPIC, 0, offset(rig.request()));
        rig.kafka.rebalancesInProgress = 2;

        rig.state.shutdown();
        assertFalse(rig.loop.step());
        rig.loop.leave(PixyException.shuttingDown());

        assertEquals(1, rig.commits.get(tp(0)).offset());
    }

    @Test
    void aMemberStoppedRightAfterThePauseOfItsProcessLeavesWithoutWritingItsAcksOverAnotherMembersProgress() {
        MemberRig rig = rig(settings());
        rig.join(tp(0));
        rig.fetchable(tp(0), 0);
        rig.loop.step();
        rig.state.ack(MemberRig.TOPIC, 0, offset(rig.request()));
        long committedBefore = committed(rig);
        rig.nanos.addAndGet(Duration.ofSeconds(30).toNanos());
        rig.pauses.tick();

        rig.state.shutdown();
        assertFalse(rig.loop.step());
        rig.loop.leave(PixyException.shuttingDown());

        assertEquals(committedBefore, committed(rig), "the ack is offered again instead");
        assertTrue(committedBefore < 1);
    }

    @Test
    void shutdownAnswersParkedRequestsWaitsForOutstandingAcksThenCommits() throws Exception {
        MemberRig rig = rig(settings().shutdownTimeout(Duration.ofSeconds(30)));
        rig.join(tp(0));
        rig.fetchable(tp(0), 0, 1);
        rig.loop.step();
        long offered = offset(rig.request());
        WaitingRequest parked = rig.request();
        assertEquals(1, offset(parked));
        WaitingRequest waiting = rig.request();

        rig.state.shutdown();
        ExecutionException e = assertThrows(ExecutionException.class, waiting.result::get);
        assertEquals(ErrorKind.SHUTTING_DOWN, ((PixyException) e.getCause()).kind());
        assertThrows(PixyException.class, rig::request);

        List<Throwable> failures = new ArrayList<>();
        Thread acker = Thread.ofVirtual().start(() -> {
            try {
                MemberRig.await("the member waits for acks", rig.state.commits::awaitingAcks);
                rig.state.ack(MemberRig.TOPIC, 0, offered);
                rig.state.ack(MemberRig.TOPIC, 0, 1);
            } catch (Throwable t) {
                failures.add(t);
            }
        });
        assertFalse(rig.loop.step());
        rig.loop.leave(PixyException.shuttingDown());
        acker.join();

        assertEquals(List.of(), failures);
        assertEquals(2, rig.commits.get(tp(0)).offset());
        assertTrue(rig.kafka.closed());
    }
}
