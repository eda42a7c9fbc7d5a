package io.kafkapixy.consumer;

import io.kafkapixy.consumer.share.ShareGroupSetup;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.kafkapixy.offset.store.Committed;
import io.kafkapixy.offset.store.OffsetStore;
import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.MutableClock;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A parked request is answered {@code long polling timeout} at its arrival plus {@code long_polling_timeout}, on the
 * consumers' clock, whatever its group is doing meanwhile: a group whose consumer is still being made, one waiting for
 * its turn to start, one whose join never finishes. Time is a {@link MutableClock}; the deadlines' timer runs what is
 * due when the test moves the clock.
 */
class LongPollDeadlineTest {

    private static final Duration LONG_POLL = Duration.ofSeconds(3);
    private static final Duration MARGIN = Duration.ofMillis(1);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final ManualDeadlines deadlines = new ManualDeadlines();
    private final ConsumerConfig config = new ConsumerSettingsBuilder().longPollingTimeout(LONG_POLL).build();
    /** Released at the end, so no owning thread is left blocked. */
    private final CountDownLatch release = new CountDownLatch(1);
    private Consumers consumers;

    @AfterEach
    void releaseTheOwningThreads() {
        release.countDown();
        if (consumers != null) {
            consumers.close();
        }
    }

    @Test
    void aRequestParkedOnAGroupWhoseJoinNeverFinishesIsAnsweredAtItsDeadline() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        consumers = consumers(group -> new NeverJoins(polls), StartGate.OPEN);

        PendingConsume p = consumers.consumeAsync("g", "t", AckMode.NONE);
        awaitTrue(() -> polls.get() > 0, "the member is polling for its join");

        assertAnsweredAtTheDeadline(p);
    }

    @Test
    void aRequestParkedWhileItsGroupsConsumerIsStillBeingMadeIsAnsweredAtItsDeadline() throws Exception {
        CountDownLatch making = new CountDownLatch(1);
        consumers = consumers(group -> {
            making.countDown();
            await(release);
            return new NeverJoins(new AtomicInteger());
        }, StartGate.OPEN);

        PendingConsume p = consumers.consumeAsync("g", "t", AckMode.NONE);
        assertTrue(making.await(30, TimeUnit.SECONDS), "the owning thread is making the consumer");

        assertAnsweredAtTheDeadline(p);
    }

    @Test
    void requestsOfGroupsWaitingForTheirTurnToStartAreAnsweredAtTheirDeadlines() throws Exception {
        CountDownLatch making = new CountDownLatch(1);
        AtomicInteger made = new AtomicInteger();
        // one start at a time, and the first never ends: every other group waits for its turn
        consumers = consumers(group -> {
            made.incrementAndGet();
            making.countDown();
            await(release);
            return new NeverJoins(new AtomicInteger());
        }, new StartGate(1));

        List<PendingConsume> parked = new ArrayList<>();
        for (int g = 0; g < 20; g++) {
            parked.add(consumers.consumeAsync("g" + g, "t", AckMode.NONE));
        }
        assertTrue(making.await(30, TimeUnit.SECONDS));

        clock.advance(LONG_POLL.minus(MARGIN));
        deadlines.runDue(clock.instant());
        parked.forEach(p -> assertFalse(p.result().isDone(), "not before its deadline"));

        clock.advance(MARGIN);
        deadlines.runDue(clock.instant());
        for (PendingConsume p : parked) {
            assertEquals(ErrorKind.LONG_POLL_TIMEOUT, failure(p).kind());
        }
        assertEquals(1, made.get(), "only one group got its turn");
    }

    @Test
    void aRequestThatWaitedForAThreadAfterItArrivedCountsItsLongPollFromItsArrival() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        consumers = consumers(group -> new NeverJoins(polls), StartGate.OPEN);

        // stamped by the transport when the call came in, then queued for a thread for 2 s
        Instant arrival = consumers.now();
        clock.advance(Duration.ofSeconds(2));
        PendingConsume p = consumers.consumeAsync("g", "t", AckMode.NONE, Receiver.ANY, arrival);

        clock.advance(LONG_POLL.minus(Duration.ofSeconds(2)).minus(MARGIN));
        deadlines.runDue(clock.instant());
        assertFalse(p.result().isDone(), "not before arrival + long_polling_timeout");
        clock.advance(MARGIN);
        deadlines.runDue(clock.instant());
        assertEquals(ErrorKind.LONG_POLL_TIMEOUT, failure(p).kind(), "at arrival + long_polling_timeout");
    }

    @Test
    void onlyARequestForANewGroupOrATopicNewToItsMemberNeedsSetUp() throws Exception {
        consumers = consumers(group -> new NeverJoins(new AtomicInteger()), StartGate.OPEN);
        assertTrue(consumers.needsSetUp("g", "t"), "a new group: a member, its thread and meters to make");

        consumers.consumeAsync("g", "t", AckMode.NONE);

        assertFalse(consumers.needsSetUp("g", "t"), "the member and the topic's state are made: parking is all");
        assertTrue(consumers.needsSetUp("g", "t2"), "a topic new to the member: its meters to make");
        assertTrue(consumers.needsSetUp("h", "t"), "another new group");
    }

    private void assertAnsweredAtTheDeadline(PendingConsume p) {
        clock.advance(LONG_POLL.minus(MARGIN));
        deadlines.runDue(clock.instant());
        assertFalse(p.result().isDone(), "not before its deadline");

        clock.advance(MARGIN);
        deadlines.runDue(clock.instant());
        assertTrue(p.result().isDone(), "answered at its deadline");
        PixyException e = failure(p);
        assertEquals(ErrorKind.LONG_POLL_TIMEOUT, e.kind());
        assertEquals("long polling timeout", e.getMessage());
    }

    private static PixyException failure(PendingConsume p) {
        assertTrue(p.result().isCompletedExceptionally());
        return PendingConsume.failure(p.result().handle((m, e) -> e).join());
    }

    private Consumers consumers(java.util.function.Function<String, Consumer<byte[], byte[]>> kafka,
                                StartGate starts) {
        return new Consumers(config, kafka, new NoCommits(), KafkaMembership.factory(PauseWatch.manual(() -> 0)),
                GroupGuard.NONE, new MemberRig.Meters(), new InstanceLimits(1_000, 100), clock, deadlines, starts,
                group -> { throw new AssertionError("no share groups here"); }, ShareGroupSetup.NONE);
    }

    private void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition, String what) {
        io.kafkapixy.testing.TestKafka.Waits.until(java.time.Duration.ofSeconds(30), what, condition::getAsBoolean);
    }

    /** A consumer whose group never answers the join: every poll waits out its timeout and returns nothing. */
    private static final class NeverJoins extends MockConsumer<byte[], byte[]> {

        private final AtomicInteger polls;

        NeverJoins(AtomicInteger polls) {
            super("earliest");
            this.polls = polls;
        }

        @Override
        public synchronized ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
            polls.incrementAndGet();
            try {
                wait(Math.max(1, timeout.toMillis()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ConsumerRecords.empty();
        }
    }

    private static final class NoCommits implements OffsetStore {
        @Override
        public Map<TopicPartition, Committed> fetch(String group, Collection<TopicPartition> partitions) {
            Map<TopicPartition, Committed> out = new HashMap<>();
            partitions.forEach(tp -> out.put(tp, Committed.NONE));
            return out;
        }

        @Override
        public void commit(String group, Map<TopicPartition, Committed> offsets) {
        }
    }

    /** The deadlines' timer, run by the test: what is due when the clock has moved. */
    private static final class ManualDeadlines implements Deadlines {

        private record Entry(Instant due, Runnable action, boolean[] cancelled) {
        }

        private final List<Entry> timers = new ArrayList<>();

        @Override
        public synchronized Timer at(Instant due, Runnable action) {
            Entry e = new Entry(due, action, new boolean[1]);
            timers.add(e);
            return () -> {
                synchronized (ManualDeadlines.this) {
                    e.cancelled[0] = true;
                }
            };
        }

        void runDue(Instant now) {
            List<Entry> due = new ArrayList<>();
            synchronized (this) {
                timers.removeIf(e -> {
                    boolean run = !e.due.isAfter(now) && !e.cancelled[0];
                    if (run) {
                        due.add(e);
                    }
                    return run || e.cancelled[0];
                });
            }
            due.forEach(e -> e.action.run());
        }

        @Override
        public void shutdown() {
        }
    }
}
