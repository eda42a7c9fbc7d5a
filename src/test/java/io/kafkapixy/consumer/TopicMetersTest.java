package io.kafkapixy.consumer;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * A topic's meters are registered before its group's lock is taken: registering takes long enough (more in a cold
 * process) to hold up every request and the owning thread waiting for that lock, gRPC's event loop among them. Two
 * requests that make the same new topic at once leave one holder of its meters, the other given back.
 */
class TopicMetersTest {

    private final ConsumerConfig config = new ConsumerSettingsBuilder().build();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final CountingMeters meters = new CountingMeters();
    private final GroupState state = new GroupState("g", config, clock, meters);

    @Test
    void aNewTopicsMetersAreMadeWithoutTheGroupsLock() {
        meters.whileMaking = () -> assertFalse(state.lock.isLocked(), "the group's lock is free while meters are made");

        assertNotNull(state.park("t", clock.instant(), false, Receiver.ANY));

        assertEquals(1, meters.made.get());
        assertNotNull(state.topics.get("t"));
    }

    @Test
    void aKnownTopicMakesNoMeters() {
        state.park("t", clock.instant(), false, Receiver.ANY);
        meters.whileMaking = () -> { throw new AssertionError("meters made again for a known topic"); };

        assertNotNull(state.park("t", clock.instant(), false, Receiver.ANY));
        assertEquals(1, meters.made.get());
    }

    @Test
    void whenAnotherRequestMadeTheTopicMeanwhileTheSpareMetersAreGivenBack() throws Exception {
        AtomicBoolean raced = new AtomicBoolean();
        // while this request makes its meters, another one parks on the same new topic and makes it first
        meters.whileMaking = () -> {
            if (raced.compareAndSet(false, true)) {
                Thread other = Thread.ofPlatform().start(() -> state.park("t", clock.instant(), false, Receiver.ANY));
                join(other);
            }
        };

        assertNotNull(state.park("t", clock.instant(), false, Receiver.ANY));

        assertEquals(2, meters.made.get(), "both requests made meters");
        assertEquals(1, meters.removed.size(), "one holder given back");
        TopicState t = state.topics.get("t");
        assertEquals(2, t.waitingCount(), "both requests are parked on the one topic state");
        assertFalse(meters.removed.contains(t.metrics), "the topic state keeps the meters it was made with");
        assertSame(meters.holders.getFirst(), t.metrics, "the request that made the topic first owns its meters");
    }

    private static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Counts the holders made and given back; runs {@link #whileMaking} as each is made. */
    private static final class CountingMeters implements ConsumerMetrics {
        final AtomicInteger made = new AtomicInteger();
        final List<Topic> holders = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<Topic> removed = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile Runnable whileMaking = () -> { };

        @Override
        public Topic topic(String group, String topic, String mode) {
            whileMaking.run();
            made.incrementAndGet();
            Topic[] self = new Topic[1];
            self[0] = new Topic() {
                @Override
                public void request(Outcome outcome) {
                }

                @Override
                public void acked() {
                }

                @Override
                public void redelivered() {
                }

                @Override
                public void dropped() {
                }

                @Override
                public void returned() {
                }

                @Override
                public void state(int parked, int unacked, long lag, Instant oldestOut) {
                }

                @Override
                public void remove() {
                    removed.add(self[0]);
                }
            };
            holders.add(self[0]);
            return self[0];
        }

        @Override
        public void rebalanced(String group) {
        }
    }
}
