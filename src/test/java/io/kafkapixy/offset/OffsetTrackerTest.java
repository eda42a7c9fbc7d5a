package io.kafkapixy.offset;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;

/** The offset tracker's operations, table-driven after the original's tests. */
class OffsetTrackerTest {

    private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");
    /** The original's tests use a timeout of -1ns: every offer is expired right away. */
    private static final Duration EXPIRED = Duration.ofNanos(-1);

    private static Instant at(long millis) {
        return T0.plusMillis(millis);
    }

    // --- construction ----------------------------------------------------------------------------------------

    @ParameterizedTest(name = "metadata \"{0}\" at 1000 is kept as \"{1}\"")
    @CsvSource(value = {"'', '', false", "abra1234+/P, abra1234+/P, false", "abra1234+/PS, '', true",
            "a@b, '', true"})
    void validCommittedMetadataIsKeptAndInvalidIsDiscarded(String given, String kept, boolean bad) {
        OffsetTracker tracker = new OffsetTracker(1000, given, EXPIRED);

        assertThat(tracker.offset(), is(1000L));
        assertThat(tracker.metadata(), is(kept));
        assertThat(tracker.badMetadata(), is(bad));
        assertThat(tracker.metadataError().isPresent(), is(bad));
        if (bad) {
            assertThat(tracker.ackedRanges(), is(empty()));
            assertThat(tracker.metadataError().get().wrappedMessage().startsWith("bad encoding: " + given + ": "),
                    is(true));
        }
    }

    @Test
    void decodedMetadataBecomesTheAckedRanges() {
        OffsetTracker tracker = new OffsetTracker(1000, "abra1234+/P", EXPIRED);

        assertThat(tracker.ackedRanges(), contains(new AckRange(1026, 1053), new AckRange(1896, 17178584637L)));
        assertThat(tracker.sparseAcks(), is("26-53,896-17178583637"));
    }

    @Test
    void nullMetadataMeansNone() {
        OffsetTracker tracker = new OffsetTracker(7, null, EXPIRED);

        assertThat(tracker.metadata(), is(""));
        assertThat(tracker.badMetadata(), is(false));
    }

    @Test
    void nonCanonicalMetadataIsKeptVerbatimUntilTheStateChanges() {
        // "iA" is 2 spelled with a superfluous zero group; canonical is "C".
        OffsetTracker tracker = new OffsetTracker(10, "iAB", EXPIRED);
        assertThat(tracker.ackedRanges(), contains(new AckRange(12, 13)));
        assertThat(tracker.metadata(), is("iAB"));

        assertThat(tracker.onAcked(9), is(AckOutcome.DUPLICATE_NOT_OFFERED));
        assertThat(tracker.metadata(), is("iAB"));

        tracker.onAcked(14);
        assertThat(tracker.metadata(), is("CBBB"));
    }

    // --- OnAcked ---------------------------------------------------------------------------------------------

    static Stream<Arguments> ackSequenceFrom300() {
        return Stream.of(
                Arguments.of(299L, 300L, "", true),
                Arguments.of(300L, 301L, "", false),
                Arguments.of(302L, 301L, "1-2", false),
                Arguments.of(310L, 301L, "1-2,9-10", false),
                Arguments.of(311L, 301L, "1-2,9-11", false),
                Arguments.of(307L, 301L, "1-2,6-7,9-11", false),
                Arguments.of(305L, 301L, "1-2,4-5,6-7,9-11", false),
                Arguments.of(304L, 301L, "1-2,3-5,6-7,9-11", false),
                Arguments.of(305L, 301L, "1-2,3-5,6-7,9-11", true),
                Arguments.of(308L, 301L, "1-2,3-5,6-8,9-11", false),
                Arguments.of(303L, 301L, "1-5,6-8,9-11", false),
                Arguments.of(309L, 301L, "1-5,6-11", false),
                Arguments.of(306L, 301L, "1-11", false),
                Arguments.of(301L, 312L, "", false),
                Arguments.of(398L, 312L, "86-87", false),
                Arguments.of(399L, 312L, "86-88", false),
                Arguments.of(4496L, 312L, "86-88,4184-4185", false),
                Arguments.of(Long.MAX_VALUE - 1, 312L, "86-88,4184-4185,9223372036854775494-9223372036854775495",
                        false));
    }

    @Test
    void acksFromCommitted300MoveTheOffsetAndRangesStepByStep() {
        OffsetTracker tracker = new OffsetTracker(300, "", EXPIRED);
        List<Arguments> steps = ackSequenceFrom300().toList();
        for (int i = 0; i < steps.size(); i++) {
            Object[] step = steps.get(i).get();
            long acked = (long) step[0];
            String because = "step #" + i + " ack " + acked;

            AckOutcome outcome = tracker.onAcked(acked);

            assertThat(because, tracker.offset(), is((long) step[1]));
            assertThat(because, tracker.sparseAcks(), is((String) step[2]));
            assertThat(because, SparseAcks.human(tracker.offset(), tracker.metadata()), is((String) step[2]));
            assertThat(because, outcome.duplicateAck(), is((boolean) step[3]));
            assertThat(because, outcome.changed(), is(!(boolean) step[3]));
            assertThat(because, outcome.offerMissing(), is(true));
            assertThat(because, outcome.isBad(), is(true));
            // What is committed reads back as the same state.
            OffsetTracker reread = new OffsetTracker(tracker.offset(), tracker.metadata(), EXPIRED);
            assertThat(because, reread.badMetadata(), is(false));
            assertThat(because, reread.ackedRanges(), is(tracker.ackedRanges()));
        }
    }

    @Test
    void ackingTheCommittedOffsetSwallowsAnAdjacentFirstRange() {
        OffsetTracker tracker = new OffsetTracker(301, "BDCCBD", EXPIRED);

        tracker.onAcked(301);

        assertThat(tracker.offset(), is(305L));
        assertThat(tracker.ackedRanges(), contains(new AckRange(307, 309), new AckRange(310, 313)));
        assertThat(tracker.metadata(), is("CCBD"));
    }

    @Test
    void anAckOfAnOfferedOffsetRemovesTheOfferAndIsNotBad() {
        OffsetTracker tracker = new OffsetTracker(0, "", EXPIRED);
        tracker.onOffered(0, T0);
        tracker.onOffered(1, T0);

        assertThat(tracker.onAcked(1), is(AckOutcome.ACKED));
        assertThat(tracker.onAcked(1), is(AckOutcome.DUPLICATE_NOT_OFFERED));
        assertThat(tracker.onAcked(2), is(AckOutcome.ACKED_NOT_OFFERED));
        assertThat(tracker.offers().stream().map(Offer::offset).toList(), contains(0L));
        assertThat(AckOutcome.ACKED.isBad(), is(false));
        assertThat(AckOutcome.DUPLICATE.duplicateAck(), is(true));
        assertThat(AckOutcome.DUPLICATE.offerMissing(), is(false));
    }

    // --- IsAcked ---------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0}: acked={1}, next not acked={2}")
    @CsvSource({
            "299, true, 301", "300, true, 301", "301, false, 305", "302, true, 305", "303, true, 305",
            "304, true, 305", "305, false, 306", "306, false, 309", "307, true, 309", "308, true, 309",
            "309, false, 313", "310, true, 313", "311, true, 313", "312, true, 313", "313, false, 314",
            "314, false, 315"})
    void isAckedReportsOffsetsBelowTheCommittedOneOrInsideRanges(long offset, boolean acked, long next) {
        String metadata = SparseAcks.encode(301,
                List.of(new AckRange(302, 305), new AckRange(307, 309), new AckRange(310, 313)));
        OffsetTracker tracker = new OffsetTracker(301, metadata, EXPIRED);

        assertThat(tracker.isAcked(offset), is(acked));
        assertThat(tracker.nextNotAcked(offset), is(next));
        assertThat(tracker.ackState(offset), is(new AckState(acked, next)));
    }

    // --- OnOffered / OnAcked loop ----------------------------------------------------------------------------

    @ParameterizedTest(name = "[{index}]")
    @MethodSource("offerAckLoopCases")
    void offersAndAcksKeepCountsAndCommittedState(List<Object[]> steps) {
        OffsetTracker tracker = new OffsetTracker(300, "", EXPIRED);
        for (int i = 0; i < steps.size(); i++) {
            Object[] step = steps.get(i);
            String because = "step #" + i;
            long offset = (long) step[1];
            int count;
            if (step[0].equals("offer")) {
                count = tracker.onOffered(offset, T0);
            } else {
                tracker.onAcked(offset);
                count = tracker.offeredCount();
                assertThat(because, tracker.offset(), is((long) step[3]));
                assertThat(because, SparseAcks.human(tracker.offset(), tracker.metadata()), is(step[4]));
            }
            assertThat(because, count, is((int) step[2]));
            assertThat(because, tracker.offeredCount(), is(count));
        }
    }

    static Stream<Arguments> offerAckLoopCases() {
        List<Object[]> steps = List.of(
                offer(298, 0), offer(299, 0),
                // Offering in arbitrary order.
                offer(301, 1), offer(300, 2), offer(304, 3), offer(302, 4), offer(303, 5),
                offer(305, 6), offer(306, 7),
                ack(307, 7, 300, "7-8"), ack(299, 7, 300, "7-8"), ack(303, 6, 300, "3-4,7-8"),
                ack(300, 5, 301, "2-3,6-7"),
                // Offering acked offsets is ignored...
                offer(298, 5), offer(305, 5),
                // ...and so is offering offered ones.
                offer(302, 5), offer(305, 5), offer(306, 5),
                ack(299, 5, 301, "2-3,6-7"), ack(300, 5, 301, "2-3,6-7"),
                offer(309, 6), ack(302, 5, 301, "1-3,6-7"), ack(301, 4, 304, "3-4"),
                offer(308, 5), ack(306, 4, 304, "2-4"));
        return Stream.of(Arguments.of(steps));
    }

    private static Object[] offer(long offset, int count) {
        return new Object[] {"offer", offset, count};
    }

    private static Object[] ack(long offset, int count, long committed, String human) {
        return new Object[] {"ack", offset, count, committed, human};
    }

    @Test
    void anOfferIsDueAckTimeoutAfterItWasMadeAndKeptInOffsetOrder() {
        OffsetTracker tracker = new OffsetTracker(300, "", Duration.ofSeconds(5));
        tracker.onOffered(302, at(0));
        tracker.onOffered(300, at(1000));
        tracker.onOffered(301, at(2000));

        assertThat(tracker.offers(), contains(new Offer(300, 0, at(6000)), new Offer(301, 0, at(7000)),
                new Offer(302, 0, at(5000))));
        // Re-offering (e.g. after a retry) leaves the offer as it is.
        assertThat(tracker.onOffered(300, at(9000)), is(3));
        assertThat(tracker.offers().get(0), is(new Offer(300, 0, at(6000))));
    }

    // --- NextRetry -------------------------------------------------------------------------------------------

    @Test
    void retriesComeInOffsetOrderOnceOffersExpire() {
        OffsetTracker tracker = new OffsetTracker(300, "", Duration.ofSeconds(5));
        // Deadlines 5s, 7s and 9s after T0.
        tracker.onOffered(300, at(0));
        tracker.onOffered(301, at(2000));
        tracker.onOffered(302, at(4000));

        long[][] cases = {
                {0}, {1000}, {5000}, {5001, 300, 1}, {7000},
                // The next deadline counts from when NextRetry returned the message.
                {9001, 301, 1}, {9003, 302, 1}, {10000},
                {20000, 300, 2}, {20002, 301, 2}, {20004, 302, 2}, {25000},
                {25001, 300, 3}, {25002}, {25003, 301, 3}, {25004}, {25005, 302, 3}, {25006}};
        for (int i = 0; i < cases.length; i++) {
            long[] c = cases[i];
            Optional<Offer> retry = tracker.nextRetry(at(c[0]));
            if (c.length == 1) {
                assertThat("case #" + i, retry, is(Optional.empty()));
            } else {
                assertThat("case #" + i, retry, is(Optional.of(new Offer(c[1], (int) c[2], at(c[0] + 5000)))));
            }
        }
    }

    @Test
    void theRetryScanStopsAtTheFirstNeverRetriedOfferThatHasNotExpired() {
        OffsetTracker tracker = new OffsetTracker(300, "", Duration.ofSeconds(5));
        // Offered out of offset order: 300 expires at 10s, 301 already at 5s.
        tracker.onOffered(300, at(5000));
        tracker.onOffered(301, at(0));

        assertThat(tracker.nextRetry(at(6000)), is(Optional.empty()));
        assertThat(tracker.nextRetry(at(10001)).map(Offer::offset), is(Optional.of(300L)));
        // 300 has been retried now, so the scan goes past it.
        assertThat(tracker.nextRetry(at(10002)).map(Offer::offset), is(Optional.of(301L)));
    }

    @Test
    void anOfferExpiresOnlyStrictlyAfterItsDeadline() {
        OffsetTracker tracker = new OffsetTracker(0, "", Duration.ofSeconds(1));
        tracker.onOffered(0, at(0));

        assertThat(tracker.nextRetry(at(1000)), is(Optional.empty()));
        assertThat(tracker.nextRetry(at(1000).plusNanos(1)).isPresent(), is(true));
    }

    @Test
    void thereIsNothingToRetryWithoutOffers() {
        assertThat(new OffsetTracker(0, "", EXPIRED).nextRetry(T0), is(Optional.empty()));
    }

    // --- Adjust ----------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "adjust to {0}: offset {1}, ranges \"{2}\", {3} offers left")
    @CsvSource({
            "300, 300, '2-4,5-9,12-13,14-16', 8, 300",
            "301, 301, '1-3,4-8,11-12,13-15', 7, 301",
            "302, 304, '1-5,8-9,10-12', 6, 304",
            "303, 304, '1-5,8-9,10-12', 6, 304",
            "304, 304, '1-5,8-9,10-12', 6, 304",
            "305, 309, '3-4,5-7', 5, 309",
            "306, 309, '3-4,5-7', 5, 309",
            "307, 309, '3-4,5-7', 5, 309",
            "308, 309, '3-4,5-7', 5, 309",
            "309, 309, '3-4,5-7', 5, 309",
            "310, 310, '2-3,4-6', 4, 310",
            "311, 311, '1-2,3-5', 3, 311",
            "312, 313, '1-3', 2, 313",
            "313, 313, '1-3', 2, 313",
            "314, 316, '', 1, 316",
            "315, 316, '', 1, 316",
            "316, 316, '', 1, 316",
            "317, 317, '', 0, -1"})
    void adjustMovesTheOffsetToTheRealStartPastAnAckedRangeAndDropsOffersBelowIt(long realStart, long offset,
            String ranges, int offered, long nextRetry) {
        OffsetTracker tracker = new OffsetTracker(300, "", EXPIRED);
        int[] acked = {0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0};
        for (int j = 0; j < acked.length; j++) {
            tracker.onOffered(300 + j, T0);
            if (acked[j] == 1) {
                tracker.onAcked(300 + j);
            }
        }
        assertThat(tracker.sparseAcks(), is("2-4,5-9,12-13,14-16"));
        List<Long> before = tracker.offers().stream().map(Offer::offset).toList();

        List<Long> dropped = tracker.adjust(realStart);

        assertThat(tracker.offset(), is(offset));
        assertThat(tracker.sparseAcks(), is(ranges));
        assertThat(SparseAcks.human(tracker.offset(), tracker.metadata()), is(ranges));
        assertThat(tracker.offeredCount(), is(offered));
        assertThat(dropped, is(before.stream().filter(o -> o < realStart).toList()));
        Optional<Offer> retry = tracker.nextRetry(T0);
        assertThat(retry.map(Offer::offset), is(offered > 0 ? Optional.of(nextRetry) : Optional.empty()));
    }

    @Test
    void adjustingBelowTheCommittedOffsetChangesNothing() {
        OffsetTracker tracker = new OffsetTracker(301, "BDCCBD", EXPIRED);
        tracker.onOffered(301, T0);

        assertThat(tracker.adjust(300), is(empty()));
        assertThat(tracker.offset(), is(301L));
        assertThat(tracker.metadata(), is("BDCCBD"));
        assertThat(tracker.offeredCount(), is(1));
    }

    @Test
    void adjustingToTheCommittedOffsetReencodesTheMetadataAsTheOriginalDoes() {
        OffsetTracker tracker = new OffsetTracker(10, "iAB", EXPIRED);

        assertThat(tracker.adjust(10), is(empty()));
        assertThat(tracker.metadata(), is("CB"));
    }

    // --- ShouldWait4Ack --------------------------------------------------------------------------------------

    @ParameterizedTest(name = "at {0}ms wait {1}ms")
    @CsvSource({"0, 9000", "2998, 6002", "2999, 6001", "3000, 6000", "3001, 5999", "3999, 5001", "4000, 5000",
            "8950, 50", "8999, 1", "9000, 0", "9001, 0", "9999, 0"})
    void shutdownWaitsUntilTheLatestOutstandingDeadline(long millis, long waitMillis) {
        OffsetTracker tracker = new OffsetTracker(300, "", Duration.ofSeconds(5));
        // Deadlines 3s, 9s, 4s and already expired.
        tracker.onOffered(300, at(-2000));
        tracker.onOffered(301, at(4000));
        tracker.onOffered(302, at(-1000));
        tracker.onOffered(303, at(-6000));

        assertThat(tracker.shouldWaitForAck(at(millis)), is(Duration.ofMillis(waitMillis)));
    }

    @Test
    void withoutOffersThereIsNothingToWaitFor() {
        assertThat(new OffsetTracker(0, "", Duration.ofSeconds(5)).shouldWaitForAck(T0), is(Duration.ZERO));
    }

    // --- reschedule: a client gives a message back (streaming nack) ---

    @Test
    void aRescheduledOfferIsFoundBehindOffersThatAreNotDue() {
        OffsetTracker tracker = new OffsetTracker(0, "", Duration.ofSeconds(30));
        tracker.onOffered(0, at(0));
        tracker.onOffered(1, at(0));
        tracker.onOffered(2, at(0));

        assertThat(tracker.reschedule(2, 0, at(100)), is(true));

        assertThat(tracker.nextRetry(at(50)), is(Optional.empty()));
        assertThat(tracker.nextRetry(at(101)), is(Optional.of(new Offer(2, 1, at(30_101)))));
        assertThat(tracker.nextRetry(at(102)), is(Optional.empty()));
    }

    @Test
    void anOfferRescheduledLaterDoesNotHideLaterOffersThatAreDue() {
        OffsetTracker tracker = new OffsetTracker(0, "", Duration.ofSeconds(1));
        tracker.onOffered(0, at(0));
        tracker.onOffered(1, at(0));

        tracker.reschedule(0, 0, at(60_000));

        assertThat(tracker.nextRetry(at(1_001)), is(Optional.of(new Offer(1, 1, at(2_001)))));
        assertThat(tracker.nextRetry(at(59_000)), is(Optional.of(new Offer(1, 2, at(60_000)))));
    }

    @Test
    void rescheduleMovesOnlyTheDeliveryItWasAskedFor() {
        OffsetTracker tracker = new OffsetTracker(0, "", Duration.ofSeconds(1));
        tracker.onOffered(5, at(0));
        tracker.nextRetry(at(1_001));

        assertThat("a client that held the first delivery", tracker.reschedule(5, 0, at(1_100)), is(false));
        assertThat(tracker.reschedule(5, 1, at(1_100)), is(true));
        assertThat(tracker.reschedule(6, -1, at(1_100)), is(false));
        assertThat(tracker.offers(), contains(new Offer(5, 1, at(1_100))));
    }

    @Test
    void anUndoneFirstDeliveryRetriedLateDoesNotHideOffersDueBeforeIt() {
        OffsetTracker tracker = new OffsetTracker(0, "", Duration.ofSeconds(30));
        tracker.onOffered(5, at(0));
        tracker.onOffered(6, at(0));
        tracker.reschedule(5, 0, at(10), true);
        assertThat(tracker.nextRetry(at(20_000)), is(Optional.of(new Offer(5, 0, at(50_000)))));

        assertThat(tracker.nextRetry(at(30_001)), is(Optional.of(new Offer(6, 1, at(60_001)))));
    }

    @Test
    void anUndoneOfferIsRetriedAsTheSameDeliveryAtOnce() {
        OffsetTracker tracker = new OffsetTracker(0, "", Duration.ofSeconds(30));
        tracker.onOffered(0, at(0));
        tracker.onOffered(1, at(0));

        assertThat(tracker.reschedule(1, 0, at(10), true), is(true));

        assertThat("found behind an offer that is not due", tracker.nextRetry(at(11)),
                is(Optional.of(new Offer(1, 0, at(30_011)))));
    }
}
