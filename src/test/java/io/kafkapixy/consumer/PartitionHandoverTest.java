package io.kafkapixy.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.kafkapixy.offset.store.Committed;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.TestKafka;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.kafkapixy.consumer.MemberRig.offset;
import static io.kafkapixy.consumer.MemberRig.tp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Partitions leaving a member while it has messages out: the revoke waits for their acks as the original does, up to
 * {@code ack_timeout}, but never past the limit the membership allows, and commits what was acked by then. The test's
 * thread is the owning thread, blocked in the revoke; a helper acts meanwhile.
 */
@Timeout(30)
class PartitionHandoverTest {

    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(10);
    private final List<Throwable> helperFailures = new ArrayList<>();
    private Thread helper;

    @AfterEach
    void helperSucceeded() throws InterruptedException {
        if (helper != null) {
            helper.join(Duration.ofSeconds(5));
        }
        assertEquals(List.of(), helperFailures);
    }

    /** Joins with partitions 0 and 1, and offers offsets 0 and 1 of partition 0 without acks. */
    private static MemberRig offering(Duration revokeWaitLimit) {
        MemberRig rig = new MemberRig(ConsumerSettingsBuilder.fast().ackTimeout(ACK_TIMEOUT).build(),
                revokeWaitLimit);
        rig.topic(MemberRig.TOPIC, 2, 0, 0);
        rig.join(tp(0), tp(1));
        rig.fetchable(tp(0), 0, 1, 2);
        rig.loop.step();
        assertEquals(0, offset(rig.request()));
        assertEquals(1, offset(rig.request()));
        return rig;
    }

    private void whileTheRevokeWaits(MemberRig rig, Runnable action) {
        helper = Thread.ofVirtual().start(() -> {
            try {
                MemberRig.await("the revoke waits for acks", rig.state.commits::awaitingAcks);
                action.run();
            } catch (Throwable t) {
                helperFailures.add(t);
            }
        });
    }

    @Test
    void acksThatArriveWhileTheRevokeWaitsAreCommittedBeforeThePartitionGoes() {
        MemberRig rig = offering(Duration.ofMinutes(5));
        whileTheRevokeWaits(rig, () -> {
            rig.state.ack(MemberRig.TOPIC, 0, 0);
            rig.state.ack(MemberRig.TOPIC, 0, 1);
        });

        rig.rebalanceTo(tp(1));
        rig.loop.step();

        assertEquals(new Committed(2, ""), rig.commits.get(tp(0)));
        assertFalse(rig.state.ack(MemberRig.TOPIC, 0, 2), "the partition is gone");
    }

    @Test
    void anAckThatDoesNotComeIsWaitedForUntilAckTimeoutThenLeftToTheNextOwner() {
        MemberRig rig = offering(Duration.ofMinutes(5));
        whileTheRevokeWaits(rig, () -> {
            rig.state.ack(MemberRig.TOPIC, 0, 1);
            stillWaitingJustBeforeAckTimeout(rig);
        });

        rig.rebalanceTo(tp(1));
        rig.loop.step();

        Committed c = rig.commits.get(tp(0));
        assertEquals(0, c.offset(), "the unacked message is not committed");
        assertNotEquals("", c.metadata(), "the acked one after it is kept in the sparse acks");
        assertFalse(rig.state.ack(MemberRig.TOPIC, 0, 0), "a late ack finds the partition gone");
    }

    @Test
    void withoutAMembershipLimitOnlyAckTimeoutEndsTheWait() {
        MemberRig rig = offering(null);
        whileTheRevokeWaits(rig, () -> stillWaitingJustBeforeAckTimeout(rig));

        rig.rebalanceTo(tp(1));
        rig.loop.step();

        assertEquals(0, rig.commits.get(tp(0)).offset());
    }

    @Test
    void theWaitEndsAtTheMembershipsLimitEvenBeforeAckTimeout() {
        MemberRig rig = offering(Duration.ofSeconds(3));
        whileTheRevokeWaits(rig, () -> rig.clock.advance(Duration.ofSeconds(3)));

        rig.rebalanceTo(tp(1));
        rig.loop.step();

        assertEquals(0, rig.commits.get(tp(0)).offset());
    }

    @Test
    void aShutdownDuringTheWaitCutsItToTheShutdownTimeout() {
        MemberRig rig = offering(Duration.ofMinutes(5));
        whileTheRevokeWaits(rig, () -> {
            rig.state.shutdown();
            rig.clock.advance(rig.config.shutdownTimeout());
        });

        rig.rebalanceTo(tp(1));
        rig.loop.step();

        assertEquals(0, rig.commits.get(tp(0)).offset());
    }

    @Test
    void aPartitionThatStaysKeepsServingAcrossTheRebalance() {
        MemberRig rig = offering(Duration.ofMinutes(5));
        rig.state.ack(MemberRig.TOPIC, 0, 0);
        rig.state.ack(MemberRig.TOPIC, 0, 1);

        rig.rebalanceTo(tp(1));
        rig.loop.step();
        rig.fetchable(tp(1), 0);
        rig.loop.step();
        WaitingRequest r = rig.request();

        assertEquals(1, r.result.getNow(null).partition());
        assertEquals(2, rig.meters.rebalances.get(), "assigned once, revoked once");
    }

    /**
     * Moves the clock to 1 ms before the offer's ack deadline, checks that the partition stays held for a while (the
     * owner thread reads the clock at least every 100 ms, so the wait goes on), then moves the last millisecond, in any
     * case, so the owner thread is never left waiting on a stopped clock.
     */
    private static void stillWaitingJustBeforeAckTimeout(MemberRig rig) {
        rig.clock.advance(ACK_TIMEOUT.minusMillis(1));
        try {
            TestKafka.Waits.holdsFor(Duration.ofMillis(300), "the partition is held just before ack_timeout",
                    () -> rig.state.commits.assignedPartitions().contains(tp(0)));
        } finally {
            rig.clock.advance(Duration.ofMillis(1));
        }
    }
}
