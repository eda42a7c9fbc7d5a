package io.kafkapixy.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code limits.max_groups} counts the groups served: when every place is taken, a new group takes the place of the
 * group that has served nobody the longest (no request parked, no stream, nothing out with a client, none asked or
 * answered for a quarter of a second), which then leaves; a place held by a group that serves someone is never taken, and
 * the new group is refused as before. Time is a {@link MutableClock}.
 */
class GroupPlacesTest {

    private static final Duration LONG_POLL = Duration.ofSeconds(3);
    private static final String FULL =
            "Too many requests. 2 consumer groups are already served by this instance (limits.max_groups)";

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final ConsumerConfig config = new ConsumerSettingsBuilder().longPollingTimeout(LONG_POLL).build();
    private final InstanceLimits limits = new InstanceLimits(100, 2);

    /** A holder whose idleness the test sets; counts its retirements. */
    private static final class Holder implements InstanceLimits.Retirable {
        volatile Instant idleSince;
        final AtomicInteger retired = new AtomicInteger();

        @Override
        public Instant idleSince() {
            return idleSince;
        }

        @Override
        public boolean retire() {
            if (idleSince == null) {
                return false;
            }
            retired.incrementAndGet();
            idleSince = null;
            return true;
        }
    }

    @Test
    void aNewGroupTakesThePlaceOfTheGroupIdleTheLongest() {
        Holder older = hold(Instant.parse("2026-01-01T00:00:00Z"));
        Holder newer = hold(Instant.parse("2026-01-01T00:00:05Z"));

        assertNotNull(limits.enterGroup());

        assertEquals(1, older.retired.get(), "the group that served nobody the longest retires");
        assertEquals(0, newer.retired.get());
    }

    @Test
    void groupsThatServeSomeoneKeepTheirPlacesAndTheNewGroupIsRefused() {
        hold(null);
        hold(null);

        PixyException e = assertThrows(PixyException.class, limits::enterGroup);

        assertEquals(ErrorKind.INSTANCE_FULL, e.kind());
        assertEquals(FULL, e.getMessage());
    }

    @Test
    void aRetiredGroupsPlaceIsNotFreedASecondTimeWhenItHasLeft() {
        Holder idle = new Holder();
        InstanceLimits.GroupSlot retiring = limits.enterGroup();
        retiring.retirableBy(idle);
        hold(null);
        idle.idleSince = clock.instant();
        assertNotNull(limits.enterGroup(), "took the idle group's place");

        retiring.close(); // the retired member has left

        assertThrows(PixyException.class, limits::enterGroup, "still two groups served: no place is free");
    }

    @Test
    void aMemberServesNobodyOnceNothingIsParkedOrOutAndNothingWasAskedOrAnsweredForAQuarterOfASecond() {
        GroupState state = new GroupState("g", config, clock, new MemberRig.Meters());
        MemberRetirement retirement = new MemberRetirement(state);
        Instant lastRequest = clock.instant();
        WaitingRequest parked = state.park("t", lastRequest, false, Receiver.ANY);
        assertNull(retirement.idleSince(), "a request is parked");

        answerAtDeadline(state);
        assertTrue(parked.result.isDone(), "answered at its deadline");
        assertNull(retirement.idleSince(), "just answered: its client may be asking again");

        clock.advance(MemberRetirement.QUIET);
        assertEquals(lastRequest, retirement.idleSince(), "nothing parked or out, nothing asked or answered since");
    }

    @Test
    void aMemberWhoseClientPollsInALoopDoesNotRetire() {
        GroupState state = new GroupState("g", config, clock, new MemberRig.Meters());
        MemberRetirement retirement = new MemberRetirement(state);
        for (int poll = 0; poll < 3; poll++) {
            state.park("t", clock.instant(), false, Receiver.ANY);
            answerAtDeadline(state);
            clock.advance(MemberRetirement.QUIET.minusMillis(1)); // the client asks again before a quarter second
        }

        assertNull(retirement.idleSince());
        assertFalse(retirement.retire());
        assertFalse(state.isClosed());
    }

    @Test
    void aMemberWithAMessageOutWithAClientDoesNotRetireUntilItIsAcked() {
        MemberRig rig = new MemberRig(ConsumerSettingsBuilder.fast().longPollingTimeout(LONG_POLL)
                .ackTimeout(Duration.ofMinutes(5)).build());
        rig.topic(MemberRig.TOPIC, 1, 0, 0);
        rig.join(MemberRig.tp(0));
        rig.fetchable(MemberRig.tp(0), 0);
        rig.loop.step();
        MemberRetirement retirement = new MemberRetirement(rig.state);
        WaitingRequest took = rig.request();
        assertTrue(took.result.isDone(), "offset 0 handed out");
        rig.clock.advance(LONG_POLL.plus(MemberRetirement.QUIET).multipliedBy(10));

        assertNull(retirement.idleSince(), "a message is out with its client: its ack must still be taken");
        assertFalse(retirement.retire());

        assertTrue(rig.state.ack(MemberRig.TOPIC, 0, 0));
        assertNotNull(retirement.idleSince(), "acked: nobody is served any more");
    }

    @Test
    void aRetiredMemberTakesNothingNewAndLeavesAtItsOwnersNextTurn() {
        GroupState state = new GroupState("g", config, clock, new MemberRig.Meters());
        MemberRetirement retirement = new MemberRetirement(state);
        state.park("t", clock.instant(), false, Receiver.ANY);
        answerAtDeadline(state);
        clock.advance(MemberRetirement.QUIET);

        assertTrue(retirement.retire());

        assertTrue(state.isClosed());
        assertNull(state.park("t", clock.instant(), false, Receiver.ANY), "the next request makes a new member");
        assertTrue(state.wantedTopics().isEmpty(), "no topic wanted: the owning thread leaves");
        assertFalse(retirement.retire(), "retires once");
    }

    /** Moves the clock to the parked request's deadline, where it is answered. */
    private void answerAtDeadline(GroupState state) {
        clock.advance(LONG_POLL);
        state.locked(() -> state.topics.get("t").dispatch(clock.instant(), 100, 0));
    }

    private Holder hold(Instant idleSince) {
        Holder h = new Holder();
        h.idleSince = idleSince;
        limits.enterGroup().retirableBy(h);
        return h;
    }
}
