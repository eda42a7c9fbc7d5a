package io.kafkapixy.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;

import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.offset.OffsetTracker;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How parked requests meet fetched messages, on a fake clock. */
class TopicStateTest {

    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration LONG_POLL = Duration.ofSeconds(3);
    private final Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
    private final TopicState topic = new TopicState("t", t0);

    @Test
    void parkedRequestsAreServedOldestFirstOneMessageEach() throws Exception {
        PartitionState p0 = partition(0, 0);
        WaitingRequest first = park(t0);
        WaitingRequest second = park(t0.plusMillis(1));

        fetch(p0, 0, 1, 2);
        topic.dispatch(t0.plusMillis(2), 300, -1);

        assertEquals(0, first.result.get().offset());
        assertEquals(1, second.result.get().offset());
    }

    @Test
    void partitionsAreServedRoundRobin() throws Exception {
        PartitionState p0 = partition(0, 0);
        PartitionState p1 = partition(1, 0);
        PartitionState p2 = partition(2, 0);
        fetch(p0, 0, 1, 2);
        fetch(p1, 0, 1, 2);
        fetch(p2, 0, 1, 2);

        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            WaitingRequest r = park(t0);
            topic.dispatch(t0, 300, -1);
            order.add(r.result.get().partition());
        }

        assertEquals(List.of(0, 1, 2, 0, 1, 2), order);
    }

    @Test
    void atMostMaxPendingPlusOneMessagesAwaitAcksPerPartition() throws Exception {
        PartitionState p0 = partition(0, 0);
        fetch(p0, 0, 1, 2, 3, 4);

        for (int i = 0; i < 3; i++) {
            WaitingRequest r = park(t0);
            topic.dispatch(t0, 2, -1);
            assertEquals(i, r.result.get().offset());
        }
        WaitingRequest blocked = park(t0);
        topic.dispatch(t0, 2, -1);
        assertFalse(blocked.result.isDone());
        assertTrue(p0.shouldPauseFetching(64, 2));

        p0.ack(0);
        topic.dispatch(t0, 2, -1);
        assertEquals(3, blocked.result.get().offset());
    }

    @Test
    void anUnackedMessageIsOfferedAgainAfterAckTimeoutBeforeNewMessages() throws Exception {
        PartitionState p0 = partition(0, 0);
        fetch(p0, 0, 1);
        WaitingRequest r1 = park(t0);
        topic.dispatch(t0, 300, -1);
        assertEquals(0, r1.result.get().offset());

        Instant later = t0.plus(ACK_TIMEOUT).plusMillis(1);
        WaitingRequest r2 = park(later);
        topic.dispatch(later, 300, -1);

        assertEquals(0, r2.result.get().offset());
    }

    @Test
    void withMaxRetriesZeroAMessageIsOfferedOnceThenDroppedAsAcked() throws Exception {
        PartitionState p0 = partition(0, 0);
        fetch(p0, 0);
        WaitingRequest r1 = park(t0);
        topic.dispatch(t0, 300, 0);
        assertEquals(0, r1.result.get().offset());

        Instant later = t0.plus(ACK_TIMEOUT).plusMillis(1);
        WaitingRequest r2 = park(later);
        topic.dispatch(later, 300, 0);

        assertFalse(r2.result.isDone());
        assertEquals(1, p0.position().offset());
    }

    @Test
    void offersPastMaxRetriesAreDroppedEvenWhenNoRequestComes() throws Exception {
        PartitionState p0 = partition(0, 0);
        fetch(p0, 0, 1);
        WaitingRequest r = park(t0);
        topic.dispatch(t0, 300, 0);
        assertEquals(0, r.result.get().offset());

        p0.takeDueRetry(t0.plus(ACK_TIMEOUT).plusMillis(1), 0);

        assertEquals(0, p0.offeredCount());
        assertEquals(1, p0.position().offset());
    }

    @Test
    void offsetsWithoutRecordsCountAsAckedOnceEverythingBeforeThemIs() throws Exception {
        // a transaction: records 0..2, its commit marker at 3, then record 4
        PartitionState p0 = partition(0, 0);
        fetch(p0, 0, 1, 2, 4);
        List<Long> delivered = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            WaitingRequest r = park(t0);
            topic.dispatch(t0, 300, -1);
            delivered.add(r.result.get().offset());
        }
        assertEquals(List.of(0L, 1L, 2L, 4L), delivered);

        p0.ack(4);
        p0.ack(0);
        p0.ack(2);
        assertEquals(1, p0.position().offset());
        p0.ack(1);

        assertEquals(5, p0.position().offset());
        assertEquals("", p0.position().metadata());
    }

    @Test
    void aGapFetchedAfterEverythingBeforeItWasAckedIsClosedToo() throws Exception {
        PartitionState p0 = partition(0, 0);
        fetch(p0, 0, 1, 2);
        for (int i = 0; i < 3; i++) {
            WaitingRequest r = park(t0);
            topic.dispatch(t0, 300, -1);
            p0.ack(r.result.get().offset());
        }
        assertEquals(3, p0.position().offset());

        fetch(p0, 4);
        WaitingRequest r = park(t0);
        topic.dispatch(t0, 300, -1);
        p0.ack(r.result.get().offset());

        assertEquals(5, p0.position().offset());
    }

    @Test
    void aTransactionMarkerAtTheEndOfTheLogIsSeenThroughTheFetchPosition() throws Exception {
        PartitionState p0 = partition(0, 0);
        fetch(p0, 0, 1);
        p0.fetchedUpTo(3);
        for (int i = 0; i < 2; i++) {
            WaitingRequest r = park(t0);
            topic.dispatch(t0, 300, -1);
            p0.ack(r.result.get().offset());
        }

        assertEquals(3, p0.position().offset());
    }

    @Test
    void aRequestPastItsDeadlineIsAnsweredLongPollingTimeout() {
        partition(0, 0);
        WaitingRequest r = park(t0);

        topic.dispatch(t0.plus(LONG_POLL), 300, -1);

        ExecutionException e = assertThrows(ExecutionException.class, r.result::get);
        assertEquals(ErrorKind.LONG_POLL_TIMEOUT, ((PixyException) e.getCause()).kind());
    }

    @Test
    void moreParkedRequestsThanTheBufferPlusOneAreRefused() {
        topic.park(t0, t0.plus(LONG_POLL), 2);
        topic.park(t0, t0.plus(LONG_POLL), 2);
        topic.park(t0, t0.plus(LONG_POLL), 2);

        PixyException e = assertThrows(PixyException.class, () -> topic.park(t0, t0.plus(LONG_POLL), 2));
        assertEquals(ErrorKind.TOO_MANY_REQUESTS, e.kind());
        assertTrue(e.getMessage().startsWith("Too many requests. Consider increasing `consumer.channel_buffer_size`"));
    }

    @Test
    void aRevokedPartitionOffersNothingMore() {
        PartitionState p0 = partition(0, 0);
        fetch(p0, 0);
        p0.startRevoking();
        WaitingRequest r = park(t0);

        topic.dispatch(t0, 300, -1);

        assertFalse(r.result.isDone());
    }

    @Test
    void acknowledgedMessagesAreSkippedWhenFetched() throws Exception {
        // committed 10 with 11..12 acked ("BC": gap 1, run 2)
        PartitionState p0 = partition(0, 10, "BC");
        fetch(p0, 10, 11, 12, 13);
        List<Long> offsets = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            WaitingRequest r = park(t0);
            topic.dispatch(t0, 300, -1);
            offsets.add(r.result.get().offset());
        }
        assertEquals(List.of(10L, 13L), offsets);
    }

    @Test
    void aTopicExpiresAfterSubscriptionTimeoutWhenNothingIsUnacked() {
        Duration sub = Duration.ofSeconds(15);
        partition(0, 0);

        assertFalse(topic.shouldExpire(t0.plus(sub).minusMillis(1), sub, ACK_TIMEOUT));
        assertTrue(topic.shouldExpire(t0.plus(sub), sub, ACK_TIMEOUT));
    }

    @Test
    void aTopicWithUnackedMessagesWaitsForAcksUpToAckTimeout() throws Exception {
        Duration sub = Duration.ofSeconds(5);
        PartitionState p0 = partition(0, 0);
        fetch(p0, 0);
        WaitingRequest r = park(t0);
        topic.dispatch(t0, 300, -1);
        r.result.get();

        assertFalse(topic.shouldExpire(t0.plus(sub), sub, ACK_TIMEOUT));
        assertTrue(topic.shouldExpire(t0.plus(ACK_TIMEOUT), sub, ACK_TIMEOUT));
        p0.ack(0);
        assertTrue(topic.shouldExpire(t0.plus(sub), sub, ACK_TIMEOUT));
    }

    @Test
    void aParkedRequestKeepsATopicAlive() {
        Duration sub = Duration.ofSeconds(5);
        park(t0);

        assertFalse(topic.shouldExpire(t0.plus(Duration.ofHours(1)), sub, ACK_TIMEOUT));
    }

    @Test
    void changedPositionsAreCommittedOnce() {
        PartitionState p0 = partition(0, 0);
        fetch(p0, 0, 1);
        WaitingRequest r = park(t0);
        topic.dispatch(t0, 300, -1);

        p0.ack(0);
        var first = p0.commitIfChanged();
        var second = p0.commitIfChanged();

        assertEquals(1, first.orElseThrow().offset());
        assertTrue(second.isEmpty());
    }

    private PartitionState partition(int id, long committed) {
        return partition(id, committed, "");
    }

    private PartitionState partition(int id, long committed, String metadata) {
        PartitionState p = new PartitionState(new TopicPartition("t", id),
                new OffsetTracker(committed, metadata, ACK_TIMEOUT), null, committed);
        topic.add(p);
        return p;
    }

    private WaitingRequest park(Instant arrival) {
        return topic.park(arrival, arrival.plus(LONG_POLL), 64);
    }

    private static void fetch(PartitionState p, long... offsets) {
        for (long o : offsets) {
            p.addFetched(new ConsumerRecord<>("t", p.tp.partition(), o, null, ("m" + o).getBytes()));
        }
    }
}
