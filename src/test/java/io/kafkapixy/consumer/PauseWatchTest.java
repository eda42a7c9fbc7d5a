package io.kafkapixy.consumer;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PauseWatchTest {

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final PauseWatch watch = PauseWatch.manual(nanos::get);

    private void advance(java.time.Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    @Test
    void ticksOnTimeKeepTheEpoch() {
        for (int i = 0; i < 50; i++) {
            advance(PauseWatch.TICK);
            watch.tick();
            assertEquals(0, watch.epochIfAwake());
        }
    }

    @Test
    void aProcessThatStoodStillHasNoEpochUntilTheTickerCountsThePause() {
        advance(PauseWatch.STILL.plusMillis(1));
        assertEquals(-1, watch.epochIfAwake(), "any thread that runs first after the pause sees it");

        watch.tick();
        assertEquals(1, watch.epochIfAwake());
        advance(PauseWatch.TICK);
        watch.tick();
        assertEquals(1, watch.epochIfAwake());
    }

    @Test
    void aLateTickWithinTheLimitIsNoPause() {
        advance(PauseWatch.STILL);
        assertEquals(0, watch.epochIfAwake());
        watch.tick();
        assertEquals(0, watch.epochIfAwake());
    }
}
