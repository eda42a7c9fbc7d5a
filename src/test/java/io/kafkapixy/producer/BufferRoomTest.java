package io.kafkapixy.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class BufferRoomTest {

    private static final int BATCH = 16 * 1024;
    private static final long NEEDED = 2 * 1024 * 1024;

    private double free = 64 << 20;
    private final AtomicInteger readings = new AtomicInteger();
    private final BufferRoom room = new BufferRoom(() -> {
        readings.incrementAndGet();
        return free;
    }, NEEDED, BATCH);

    @Test
    void theMeterIsReadOnceAndThenOnlyWhenSendsMayHaveUsedUpTheRoom() {
        assertTrue(room.enough());
        assertEquals(1, readings.get());
        // 64 MiB less 2 MiB is 3,968 batches of 16 KiB
        for (int i = 0; i < 3968; i++) {
            room.charge(1024);
            assertTrue(room.enough());
        }
        assertEquals(1, readings.get(), "the estimate still covers the largest message twice");

        room.charge(1024);
        assertTrue(room.enough(), "batches were freed meanwhile: the meter says there is room");
        assertEquals(2, readings.get());
    }

    @Test
    void aFullBufferIsSeenAndReadAgainOnEveryAskUntilItHasRoom() {
        free = NEEDED - 1;
        assertFalse(room.enough());
        assertFalse(room.enough());
        assertEquals(2, readings.get());

        free = NEEDED;
        assertTrue(room.enough());
        assertEquals(3, readings.get());
    }

    @Test
    void aMessageLargerThanABatchIsChargedAtItsSize() {
        free = NEEDED + 1024 * 1024;
        assertTrue(room.enough());
        room.charge(1024 * 1024);
        assertTrue(room.enough());
        assertEquals(1, readings.get());

        free = NEEDED;
        room.charge(1);
        assertTrue(room.enough(), "a charge below a batch counts as a batch; the estimate fell short, so it was read");
        assertEquals(2, readings.get());
    }

    @Test
    void aProducerWithoutTheMeterHasRoom() {
        BufferRoom unmetered = new BufferRoom(() -> Double.MAX_VALUE, NEEDED, BATCH);
        assertTrue(unmetered.enough());
        unmetered.charge(Integer.MAX_VALUE);
        assertTrue(unmetered.enough());
    }
}
