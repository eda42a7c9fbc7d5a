package io.kafkapixy.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.kafkapixy.offset.OffsetTracker;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The in-flight copy of a topic's partitions, on a fake clock: ages, redeliveries, the row limit, payloads. */
class InFlightViewTest {

    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(10);
    private final Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
    private final TopicState topic = new TopicState("t", t0);
    private final PartitionState p0 = partition(0);

    @Test
    void aMessageOutKeepsTheAgeOfItsFirstHandOutAcrossRedeliveries() {
        fetch(p0, 5, 6);
        assertEquals(5, p0.next(t0, 300, -1).offset());
        assertEquals(6, p0.next(t0.plusSeconds(2), 300, -1).offset());
        // offset 5 is due again after ack_timeout and handed out as its second delivery
        ConsumedMessage again = p0.next(t0.plusSeconds(11), 300, -1);
        assertEquals(5, again.offset());
        assertEquals(2, again.attempt());

        InFlight.Partition view = p0.view(t0.plusSeconds(15), rows(100));

        assertEquals(2, view.unacked());
        assertEquals(1, view.redeliveries());
        assertEquals(5, view.oldestOffset());
        assertEquals(15_000, view.oldestAgeMs(), "since the first hand-out, not the redelivery");
        assertEquals(List.of(5L, 6L), view.messages().stream().map(InFlight.Message::offset).toList());
        InFlight.Message m5 = view.messages().get(0);
        assertEquals(2, m5.attempt());
        assertEquals(6_000, m5.dueInMs(), "offered again 10 s after the redelivery at 11 s");
        InFlight.Message m6 = view.messages().get(1);
        assertEquals(13_000, m6.ageMs());
        assertEquals(-3_000, m6.dueInMs(), "overdue: nobody asked for it since");
        assertEquals(t0, p0.oldestOut());
    }

    @Test
    void aRetryDueAndNotYetTakenWaitsWithTheDeliveryItsClientLastGot() {
        fetch(p0, 0);
        p0.next(t0, 300, -1);
        p0.takeDueRetry(t0.plusSeconds(11), -1);

        InFlight.Message m = p0.view(t0.plusSeconds(12), rows(100)).messages().get(0);

        assertEquals("waiting", m.where());
        assertEquals(1, m.attempt());
        assertEquals(0, m.dueInMs());
        assertEquals(0, p0.view(t0.plusSeconds(12), rows(100)).redeliveries(), "not handed out again yet");
        assertEquals(2, p0.next(t0.plusSeconds(12), 300, -1).attempt());
        InFlight.Message again = p0.view(t0.plusSeconds(13), rows(100)).messages().get(0);
        assertEquals("out", again.where());
        assertEquals(2, again.attempt());
    }

    @Test
    void aFirstDeliveryThatNeverReachedItsClientStillCountsAsTheFirst() {
        fetch(p0, 0);
        ConsumedMessage m = p0.next(t0, 300, -1);
        assertTrue(p0.undoOffer(m.offset(), m.attempt(), t0.plusSeconds(1)));

        InFlight.Partition view = p0.view(t0.plusSeconds(2), rows(100));

        assertEquals(1, view.messages().get(0).attempt());
        assertEquals(0, view.redeliveries());
    }

    @Test
    void anAckTakesTheMessageOutOfTheCopy() {
        fetch(p0, 0, 1);
        p0.next(t0, 300, -1);
        p0.next(t0.plusSeconds(1), 300, -1);
        p0.ack(0);

        InFlight.Partition view = p0.view(t0.plusSeconds(3), rows(100));

        assertEquals(1, view.unacked());
        assertEquals(1, view.oldestOffset());
        assertEquals(2_000, view.oldestAgeMs());
        assertEquals(t0.plusSeconds(1), p0.oldestOut());
        assertEquals(1, view.ackedOffset(), "offset 0 acked: the next commit carries 1");
        p0.ack(1);
        InFlight.Partition none = p0.view(t0.plusSeconds(4), rows(100));
        assertEquals(-1, none.oldestOffset());
        assertEquals(-1, none.oldestAgeMs());
        assertNull(p0.oldestOut());
    }

    @Test
    void theRowLimitCutsMessagesButNotTheCounts() {
        fetch(p0, 0, 1, 2, 3);
        for (int i = 0; i < 4; i++) {
            p0.next(t0, 300, -1);
        }
        topic.partitionCount(3);
        InFlight.Rows rows = rows(3);

        InFlight.Topic view = topic.view(t0, rows);

        assertTrue(rows.truncated());
        assertEquals(1, view.partitions().size(), "partition 0 and two messages fill the three rows");
        assertEquals(2, view.partitions().get(0).messages().size());
        assertEquals(4, view.partitions().get(0).unacked());
        assertEquals(3, view.partitionCount());
    }

    @Test
    void partitionsNotHeldHereAreListedAsNotOwned() {
        partition(2);
        topic.partitionCount(3);
        InFlight.Rows rows = rows(100);

        InFlight.Topic view = topic.view(t0, rows);

        assertFalse(rows.truncated());
        assertEquals(List.of(0, 2, 1), view.partitions().stream().map(InFlight.Partition::partition).toList());
        assertEquals(List.of(true, true, false), view.partitions().stream().map(InFlight.Partition::owned).toList());
    }

    @Test
    void keysAndValuesAreCopiedOnlyWhenAskedFor() {
        p0.addFetched(new ConsumerRecord<>("t", 0, 0, "k".getBytes(), "v".getBytes()));
        p0.next(t0, 300, -1);

        InFlight.Message hidden = p0.view(t0, rows(100)).messages().get(0);
        InFlight.Message shown = p0.view(t0, new InFlight.Rows(100, true)).messages().get(0);

        assertNull(hidden.key());
        assertNull(hidden.value());
        assertArrayEquals("k".getBytes(), shown.key());
        assertArrayEquals("v".getBytes(), shown.value());
    }

    @Test
    void pausedAndFetchPositionsAreWhatTheOwningThreadLastSaid() {
        fetch(p0, 0, 1, 2);
        p0.paused(true);
        p0.endOffset(40);

        InFlight.Partition view = p0.view(t0, rows(100));

        assertTrue(view.paused());
        assertEquals(3, view.nextOffset());
        assertEquals(40, view.endOffset());
        assertEquals(3, view.buffered());
        assertEquals(-1, view.committedOffset(), "nothing committed yet");
    }

    private static InFlight.Rows rows(int limit) {
        return new InFlight.Rows(limit, false);
    }

    private PartitionState partition(int id) {
        PartitionState p = new PartitionState(new TopicPartition("t", id), new OffsetTracker(0, "", ACK_TIMEOUT),
                null, 0);
        topic.add(p);
        return p;
    }

    private static void fetch(PartitionState p, long... offsets) {
        for (long o : offsets) {
            p.addFetched(new ConsumerRecord<>("t", p.tp.partition(), o, null, ("m" + o).getBytes()));
        }
    }
}
