package io.kafkapixy.consumer.share;

import io.kafkapixy.consumer.ConsumedMessage;
import io.kafkapixy.consumer.ConsumerMetrics;
import io.kafkapixy.consumer.ConsumerSettings;
import io.kafkapixy.consumer.ConsumerStream;
import io.kafkapixy.consumer.DeadLetter;
import io.kafkapixy.consumer.DeadLettering;
import io.kafkapixy.consumer.InFlight;
import io.kafkapixy.consumer.Receiver;
import io.kafkapixy.consumer.WaitingRequest;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.kafkapixy.errors.PixyException;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.FakeDeadLetters;
import io.kafkapixy.testing.MutableClock;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.AcknowledgementCommitCallback;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidRecordStateException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A share group's topic on this instance with share consumers that stand in for the broker (kafka-clients'
 * {@code MockShareConsumer}, polled from a queue and recording settlements) and a clock the test moves: what goes to
 * which client, what is sent to the broker, and when.
 */
class ShareTopicTest {

    private static final String TOPIC = "t";
    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    /** Records the broker will hand out, one per poll, to whichever consumer polls first. */
    private final BlockingQueue<ConsumerRecord<byte[], byte[]>> broker = new LinkedBlockingQueue<>();
    /** Settlements sent, as "offset:TYPE", in the order the broker got them. */
    private final List<String> settled = new CopyOnWriteArrayList<>();
    /** Offsets whose settlement the broker refuses (their lock ran out there). */
    private final List<Long> refused = new CopyOnWriteArrayList<>();
    private final List<FakeBroker> consumers = new CopyOnWriteArrayList<>();
    /** Settlements that went to the broker with a poll rather than alone. */
    private final List<String> sentWithPolls = new CopyOnWriteArrayList<>();
    /** Offsets the consumer no longer has in flight: acknowledging them throws, as kafka-clients does. */
    private final List<Long> notInFlight = new CopyOnWriteArrayList<>();
    /** Polls that acquired new records. */
    private final java.util.concurrent.atomic.AtomicInteger polls = new java.util.concurrent.atomic.AtomicInteger();
    /** The lock the broker grants (the group's record lock duration). */
    private volatile Duration lock = ACK_TIMEOUT;
    private static final TopicIdPartition PARTITION = new TopicIdPartition(Uuid.ONE_UUID, 0, TOPIC);
    private final ShareTopic topic = topic(config());

    private static io.kafkapixy.config.ConsumerConfig config() {
        return ConsumerSettingsBuilder.fast().shareMembership().ackTimeout(ACK_TIMEOUT)
                .longPollingTimeout(Duration.ofSeconds(30)).build();
    }

    private ShareTopic topic(io.kafkapixy.config.ConsumerConfig config) {
        return topic(config, () -> { });
    }

    private ShareTopic topic(io.kafkapixy.config.ConsumerConfig config, Runnable onGone) {
        return new ShareTopic("g", TOPIC, config, clock, ConsumerMetrics.Topic.NONE,
                t -> new ShareWorker(t, this::newConsumer, Duration.ofMillis(10), (topic, answer) -> { }, w -> { }),
                onGone);
    }

    @AfterEach
    void stop() throws InterruptedException {
        stop(topic);
    }

    private void stop(ShareTopic t) throws InterruptedException {
        t.shutdown();
        clock.advance(Duration.ofHours(1));
        t.serve();
        for (ShareWorker w : t.workers()) {
            assertTrue(w.awaitDone(WAIT));
        }
    }

    @Test
    void aParkedRequestGetsARecordAndItsAckIsSentToTheBroker() throws Exception {
        WaitingRequest r = park();
        broker.add(record(0, 1));

        ConsumedMessage m = r.result.get(10, TimeUnit.SECONDS);
        assertEquals(0, m.offset());
        assertEquals(1, m.attempt());
        CompletableFuture<Void> confirmed = topic.settle(0, 0, AcknowledgeType.ACCEPT, true);

        confirmed.get(10, TimeUnit.SECONDS);
        assertEquals(List.of("0:ACCEPT"), settled);
        assertNull(topic.settle(0, 0, AcknowledgeType.ACCEPT, true), "settled once");
    }

    @Test
    void anAckNobodyWaitsForGoesWithTheNextPollOrAloneWhenNoPollComes() throws Exception {
        ShareTopic single = topic(config().with(io.kafkapixy.config.ConsumerConfig.SHARE_CONSUMERS, 1));
        try {
            WaitingRequest first = single.park(clock.instant(), false, Receiver.ANY);
            broker.add(record(0, 1));
            first.result.get(10, TimeUnit.SECONDS);
            WaitingRequest next = single.park(clock.instant(), false, Receiver.ANY);

            // the one consumer holds record 0: only once it is settled can it poll for the waiting request
            single.settle(0, 0, AcknowledgeType.ACCEPT, false);
            broker.add(record(1, 1));
            assertEquals(1, next.result.get(10, TimeUnit.SECONDS).offset());
            Awaitility.await().atMost(WAIT).until(() -> sentWithPolls.contains("0:ACCEPT"));

            single.settle(0, 1, AcknowledgeType.ACCEPT, false).get(10, TimeUnit.SECONDS);
            assertTrue(settled.contains("1:ACCEPT"), "sent alone, no client waiting for a poll: " + settled);
            assertFalse(sentWithPolls.contains("1:ACCEPT"));
        } finally {
            stop(single);
        }
    }

    @Test
    void aRecordWhoseLockRunsOutIsReleasedAndItsLateAckRefused() throws Exception {
        WaitingRequest r = park();
        broker.add(record(0, 1));
        r.result.get(10, TimeUnit.SECONDS);

        clock.advance(ACK_TIMEOUT.minusMillis(1));
        topic.serve();
        Awaitility.await("not before its lock runs out").during(Duration.ofMillis(300)).atMost(WAIT)
                .until(settled::isEmpty);
        clock.advance(Duration.ofMillis(1));
        topic.serve();

        Awaitility.await().atMost(WAIT).until(() -> settled.equals(List.of("0:RELEASE")));
        assertNull(topic.settle(0, 0, AcknowledgeType.ACCEPT, true), "no longer out from here");
    }

    @Test
    void theInFlightCopyShowsARecordOutWithItsAgeAndLockUntilItIsSettled() throws Exception {
        WaitingRequest r = park();
        broker.add(record(0, 1));
        r.result.get(10, TimeUnit.SECONDS);
        clock.advance(Duration.ofSeconds(3));

        java.util.Map<ShareStream, Integer> held = new java.util.HashMap<>();
        InFlight.Topic view = topic.view(new InFlight.Rows(100, false), held);

        assertEquals(List.of(), view.partitions(), "share groups have no partitions of their own here");
        assertEquals(1, view.consumers());
        InFlight.Message m = view.acquired().get(0);
        assertEquals(0, m.offset());
        assertEquals("out", m.where());
        assertEquals(3_000, m.ageMs());
        assertTrue(m.dueInMs() <= ACK_TIMEOUT.minusSeconds(3).toMillis() && m.dueInMs() > 0, "lock left: " + m);
        topic.settle(0, 0, AcknowledgeType.ACCEPT, true).get(10, TimeUnit.SECONDS);
        assertEquals(List.of(), topic.view(new InFlight.Rows(100, false), held).acquired());
    }

    @Test
    void aClientHoldingItsRecordDoesNotHoldUpTheNext() throws Exception {
        WaitingRequest slow = park();
        broker.add(record(0, 1));
        slow.result.get(10, TimeUnit.SECONDS);

        WaitingRequest next = park();
        broker.add(record(1, 1));

        assertEquals(1, next.result.get(10, TimeUnit.SECONDS).offset(), "a second consumer polled for it");
        assertEquals(2, consumers.size());
    }

    @Test
    void aRecordWhoseClientWasGoneGoesToTheNextRequestAsTheSameDelivery() throws Exception {
        WaitingRequest gone = park();
        broker.add(record(0, 1));
        ConsumedMessage m = gone.result.get(10, TimeUnit.SECONDS);

        assertTrue(topic.returnOffer(m));
        WaitingRequest next = park();

        assertEquals(m, next.result.getNow(null), "the same record, the same delivery, from this instance");
        assertEquals(List.of(), settled, "nothing went back to the broker");
    }

    @Test
    void theBrokersRefusalReachesTheAcker() throws Exception {
        WaitingRequest r = park();
        broker.add(record(0, 1));
        r.result.get(10, TimeUnit.SECONDS);
        refused.add(0L);

        CompletableFuture<Void> confirmed = topic.settle(0, 0, AcknowledgeType.ACCEPT, true);

        Awaitility.await().atMost(WAIT).until(confirmed::isDone);
        assertTrue(confirmed.isCompletedExceptionally());
    }

    @Test
    void aTopicWhoseLastClientLeftBeforeAnyConsumerStartedIsGone() throws Exception {
        java.util.concurrent.atomic.AtomicInteger gone = new java.util.concurrent.atomic.AtomicInteger();
        ShareTopic lonely = topic(config(), gone::incrementAndGet);
        // a client that cannot take an answer (a gRPC call nearly out of time) makes no consumer start
        WaitingRequest r = lonely.park(clock.instant(), false, () -> false);
        assertTrue(lonely.workers().isEmpty());

        lonely.giveUp(TOPIC, r, PixyException.longPollTimeout());

        assertEquals(1, gone.get(), "its slot among the instance's groups is given back");
        assertNull(lonely.park(clock.instant(), false, Receiver.ANY), "the next request makes a new topic");
    }

    @Test
    void aRedeliveredRecordCarriesItsDeliveryCount() throws Exception {
        WaitingRequest r = park();
        broker.add(record(7, 3));

        assertEquals(3, r.result.get(10, TimeUnit.SECONDS).attempt());
    }

    @Test
    void atShutdownParkedRequestsAreAnsweredAndWhatIsOutWaitsForItsAckUntilTheDeadline() throws Exception {
        WaitingRequest out = park();
        broker.add(record(0, 1));
        out.result.get(10, TimeUnit.SECONDS);
        WaitingRequest parked = park();

        topic.shutdown();

        assertTrue(parked.result.isCompletedExceptionally());
        CompletableFuture<Void> late = topic.settle(0, 0, AcknowledgeType.ACCEPT, true);
        late.get(10, TimeUnit.SECONDS);
        assertEquals(List.of("0:ACCEPT"), settled, "an ack during the drain is taken");
    }

    @Test
    void aNackedRecordIsReleasedAfterItsDelay() throws Exception {
        List<ConsumedMessage> delivered = new CopyOnWriteArrayList<>();
        ShareStream stream = new ShareStream(List.of(TOPIC), 10, ACK_TIMEOUT, new ConsumerStream.Sink() {
            @Override
            public boolean deliver(ConsumedMessage message) {
                delivered.add(message);
                return false;
            }

            @Override
            public boolean flush() {
                return true;
            }

            @Override
            public boolean ready() {
                return true;
            }

            @Override
            public void end(PixyException reason, int givenBack) {
            }
        });
        stream.serveFrom(Map.of(TOPIC, topic));
        assertTrue(topic.streamDesk.attach(stream));
        stream.credit(1);
        broker.add(record(0, 1));
        Awaitility.await().atMost(WAIT).until(() -> delivered.size() == 1);

        assertTrue(stream.nack(TOPIC, 0, 0, Duration.ofSeconds(5)));
        clock.advance(Duration.ofMillis(4999));
        topic.serve();
        Awaitility.await("not before its delay").during(Duration.ofMillis(300)).atMost(WAIT)
                .until(settled::isEmpty);
        clock.advance(Duration.ofMillis(1));
        topic.serve();

        Awaitility.await().atMost(WAIT).until(() -> settled.equals(List.of("0:RELEASE")));
        assertFalse(stream.nack(TOPIC, 0, 0, Duration.ZERO), "no longer the stream's");
        assertEquals(0, stream.close(), "nothing left to give back");
    }

    @Test
    void onePollServesEveryClientWithOneRecordEach() throws Exception {
        broker.add(record(0, 1));
        broker.add(record(1, 1));
        broker.add(record(2, 1));
        List<WaitingRequest> clients = List.of(park(), park(), park());

        Set<Long> offsets = new java.util.HashSet<>();
        for (WaitingRequest r : clients) {
            offsets.add(r.result.get(10, TimeUnit.SECONDS).offset());
        }
        assertEquals(Set.of(0L, 1L, 2L), offsets);
        assertEquals(1, polls.get(), "one fetch for all three");
        assertEquals(1, consumers.size());
    }

    @Test
    void aRecordFetchedForNoClientWaitsForTheNextAndItsAckTimeoutCountsFromItsHandOut() throws Exception {
        // both come with the first fetch
        broker.add(record(0, 1));
        broker.add(record(1, 1));
        WaitingRequest first = park();
        assertEquals(0, first.result.get(10, TimeUnit.SECONDS).offset());
        topic.settle(0, 0, AcknowledgeType.ACCEPT, true).get(10, TimeUnit.SECONDS);

        clock.advance(Duration.ofSeconds(10));
        WaitingRequest second = park();
        assertEquals(1, second.result.getNow(null).offset(), "kept here for it: no fetch");
        assertEquals(1, polls.get());

        // its lock (20 s from the fetch) runs out before its client's ack_timeout: renewed a quarter before
        clock.advance(Duration.ofSeconds(5));
        topic.serve();
        Awaitility.await().atMost(WAIT).until(() -> settled.contains("1:RENEW"));
        clock.advance(ACK_TIMEOUT.minusSeconds(5).minusMillis(1));
        topic.serve();
        Awaitility.await("not released before ack_timeout from its hand-out").during(Duration.ofMillis(300))
                .atMost(WAIT).until(() -> !settled.contains("1:RELEASE"));
        clock.advance(Duration.ofMillis(1));
        topic.serve();
        Awaitility.await().atMost(WAIT).until(() -> settled.contains("1:RELEASE"));
        assertEquals(List.of("0:ACCEPT", "1:RENEW", "1:RELEASE"), settled);
    }

    @Test
    void anAckTimeoutLongerThanTheLockIsKeptByRenewingTheLockBeforeItRunsOut() throws Exception {
        lock = Duration.ofSeconds(4);
        WaitingRequest r = park();
        broker.add(record(0, 1));
        r.result.get(10, TimeUnit.SECONDS);

        for (int i = 1; i <= 4; i++) {
            clock.advance(Duration.ofSeconds(3));
            topic.serve();
            int renewals = i;
            Awaitility.await().atMost(WAIT)
                    .until(() -> settled.stream().filter("0:RENEW"::equals).count() == renewals);
        }
        // 12 s after its hand-out, three times the lock: the client's ack is still taken
        topic.settle(0, 0, AcknowledgeType.ACCEPT, true).get(10, TimeUnit.SECONDS);
        assertEquals("0:ACCEPT", settled.get(settled.size() - 1));
    }

    @Test
    void whatNoClientAskedForDuringTheSubscriptionTimeoutGoesBackToTheBroker() throws Exception {
        // both come with the first fetch
        broker.add(record(0, 1));
        broker.add(record(1, 1));
        WaitingRequest r = park();
        r.result.get(10, TimeUnit.SECONDS);
        topic.settle(0, 0, AcknowledgeType.ACCEPT, true).get(10, TimeUnit.SECONDS);

        clock.advance(config().subscriptionTimeout().minusMillis(1));
        topic.serve();
        Awaitility.await("kept while a client may still come").during(Duration.ofMillis(300)).atMost(WAIT)
                .until(() -> settled.equals(List.of("0:ACCEPT")));
        clock.advance(Duration.ofMillis(1));
        topic.serve();
        Awaitility.await().atMost(WAIT).until(() -> settled.contains("1:RELEASE"));
    }

    @Test
    void aTopicInUseKeepsOneConsumerMoreThanItHasPartitionsSoThatAStuckOneLeavesNoPartitionUnserved()
            throws Exception {
        topic.partitions = 4;
        WaitingRequest slow = park();
        broker.add(record(0, 1));
        slow.result.get(10, TimeUnit.SECONDS);

        // the brokers share a partition among ceil(members / partitions) members: five make two for each
        Awaitility.await().atMost(WAIT).until(() -> consumers.size() == 5);
        clock.advance(ShareWorker.STUCK_AFTER);
        WaitingRequest next = park();
        broker.add(record(1, 1));

        assertEquals(1, next.result.get(10, TimeUnit.SECONDS).offset(), "another consumer fetched it");
        Awaitility.await("no more than that").during(Duration.ofMillis(300)).atMost(WAIT)
                .until(() -> consumers.size() == 5);
    }

    @Test
    void consumersKeptAheadLeaveOnceNoClientAskedDuringTheSubscriptionTimeout() throws Exception {
        topic.partitions = 2;
        WaitingRequest r = park();
        broker.add(record(0, 1));
        r.result.get(10, TimeUnit.SECONDS);
        topic.settle(0, 0, AcknowledgeType.ACCEPT, true).get(10, TimeUnit.SECONDS);
        Awaitility.await().atMost(WAIT).until(() -> topic.workers().size() == 3);

        clock.advance(config().subscriptionTimeout());
        topic.serve();

        Awaitility.await().atMost(WAIT).until(() -> topic.workers().isEmpty());
    }

    @Test
    void aRecordTheConsumerCannotAcknowledgeFailsItsOwnAckOnlyAndTheConsumerGoesOn() throws Exception {
        broker.add(record(0, 1));
        broker.add(record(1, 1));
        WaitingRequest a = park();
        WaitingRequest b = park();
        a.result.get(10, TimeUnit.SECONDS);
        b.result.get(10, TimeUnit.SECONDS);
        notInFlight.add(0L);

        CompletableFuture<Void> refused = topic.settle(0, 0, AcknowledgeType.ACCEPT, true);
        CompletableFuture<Void> taken = topic.settle(0, 1, AcknowledgeType.ACCEPT, true);

        taken.get(10, TimeUnit.SECONDS);
        Awaitility.await().atMost(WAIT).until(refused::isDone);
        assertTrue(refused.isCompletedExceptionally());
        WaitingRequest next = park();
        broker.add(record(2, 1));
        assertEquals(2, next.result.get(10, TimeUnit.SECONDS).offset(), "the consumer fetches again");
    }

    @Test
    void recordsOfAPartitionWaitOldestFirstWhateverOrderTheirFetchesAnsweredIn() {
        topic.lock.lock();
        try {
            for (long[] r : new long[][] {{0, 3}, {1, 7}, {0, 2}, {0, 4}}) {
                topic.unhanded.add(new Acquired(null, new ConsumerRecord<>(TOPIC, (int) r[0], r[1], null, new byte[0]),
                        ACK_TIMEOUT, clock.instant(), clock.instant()));
            }
            assertEquals(List.of("0/2", "0/3", "0/4", "1/7"), topic.unhanded.stream()
                    .map(a -> a.record.partition() + "/" + a.record.offset()).toList());
        } finally {
            topic.lock.unlock();
        }
    }

    @Test
    void aRenewalRestartsTheRecordsAckTimeoutAndItsLockIsRenewedMeanwhile() throws Exception {
        WaitingRequest r = park();
        broker.add(record(0, 1));
        r.result.get(10, TimeUnit.SECONDS);

        clock.advance(Duration.ofSeconds(15));
        assertTrue(topic.renew(0, 0));
        // its ack_timeout now ends 35 s after the fetch, past the 20 s lock: the lock is renewed a quarter before
        Awaitility.await().atMost(WAIT).until(() -> settled.contains("0:RENEW"));
        clock.advance(ACK_TIMEOUT.minusMillis(1));
        topic.serve();
        Awaitility.await("not released before ack_timeout from the renewal").during(Duration.ofMillis(300))
                .atMost(WAIT).until(() -> !settled.contains("0:RELEASE"));
        clock.advance(Duration.ofMillis(1));
        topic.serve();
        Awaitility.await().atMost(WAIT).until(() -> settled.contains("0:RELEASE"));
        assertFalse(topic.renew(0, 0), "no longer out from here");
    }

    @Test
    void aRecordAtItsLastDeliveryIsDeadLetteredInsteadOfReleasedThenRejected() throws Exception {
        lock = Duration.ofSeconds(60);
        FakeDeadLetters letters = new FakeDeadLetters();
        ShareTopic t = lettering(letters);
        try {
            assertEquals(2, takeAndLetItsAckTimeoutPass(t, 2).attempt());
            FakeDeadLetters.Write write = letters.awaitWrite(0);
            assertEquals(DeadLetter.Reason.RETRIES_EXHAUSTED, write.letter().reason());
            assertEquals(2, write.letter().deliveries());
            Awaitility.await("kept locked while the write is out").during(Duration.ofMillis(300)).atMost(WAIT)
                    .until(settled::isEmpty);
            assertNull(t.settle(0, 0, AcknowledgeType.ACCEPT, true), "out with no client");

            letters.accept(0);
            Awaitility.await().atMost(WAIT).until(() -> settled.equals(List.of("0:REJECT")));
        } finally {
            stop(t);
        }
    }

    @Test
    void aDeadLetterTheTopicRefusedLeavesTheRecordLockedHereAndIsWrittenAgain() throws Exception {
        lock = Duration.ofSeconds(60);
        FakeDeadLetters letters = new FakeDeadLetters();
        ShareTopic t = lettering(letters);
        try {
            takeAndLetItsAckTimeoutPass(t, 2);
            letters.refuse(0);
            Awaitility.await("nothing settled").during(Duration.ofMillis(300)).atMost(WAIT).until(settled::isEmpty);
            clock.advance(DeadLettering.RETRY_DELAY);
            t.serve();
            assertEquals(0, letters.awaitWrite(1).letter().message().offset());
            letters.accept(1);
            Awaitility.await().atMost(WAIT).until(() -> settled.equals(List.of("0:REJECT")));
        } finally {
            stop(t);
        }
    }

    @Test
    void aRecordBelowItsLastDeliveryIsReleasedAsWithoutADeadLetterTopic() throws Exception {
        lock = Duration.ofSeconds(60);
        FakeDeadLetters letters = new FakeDeadLetters();
        ShareTopic t = lettering(letters);
        try {
            takeAndLetItsAckTimeoutPass(t, 1);
            Awaitility.await().atMost(WAIT).until(() -> settled.equals(List.of("0:RELEASE")));
            assertEquals(0, letters.writes.size());
        } finally {
            stop(t);
        }
    }

    @Test
    void aRejectIsSentToTheBrokerOnlyOnceItsDeadLetterIsWritten() throws Exception {
        FakeDeadLetters letters = new FakeDeadLetters();
        ShareTopic t = lettering(letters);
        try {
            WaitingRequest r = t.park(clock.instant(), false, Receiver.ANY);
            broker.add(record(0, 1));
            broker.add(record(1, 1));
            r.result.get(10, TimeUnit.SECONDS);
            WaitingRequest r2 = t.park(clock.instant(), false, Receiver.ANY);
            r2.result.get(10, TimeUnit.SECONDS);

            CompletableFuture<Void> refused = t.letters.reject(0, 0);
            assertEquals(DeadLetter.Reason.REJECTED, letters.awaitWrite(0).letter().reason());
            letters.refuse(0);
            java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> refused.get(10, TimeUnit.SECONDS));
            assertEquals("the dead-letter topic refused the message: topic refused", e.getCause().getMessage());
            t.settle(0, 0, AcknowledgeType.ACCEPT, true).get(10, TimeUnit.SECONDS);

            CompletableFuture<Void> rejected = t.letters.reject(0, 1);
            letters.awaitWrite(1);
            Awaitility.await("not before the write").during(Duration.ofMillis(300)).atMost(WAIT)
                    .until(() -> !settled.contains("1:REJECT") && !rejected.isDone());
            letters.accept(1);
            rejected.get(10, TimeUnit.SECONDS);
            assertEquals(List.of("0:ACCEPT", "1:REJECT"), settled);
            assertNull(t.letters.reject(0, 1), "settled once");
        } finally {
            stop(t);
        }
    }

    /** A client takes record 0 at its {@code deliveryCount}-th delivery and lets its ack_timeout pass. */
    private ConsumedMessage takeAndLetItsAckTimeoutPass(ShareTopic t, int deliveryCount) throws Exception {
        WaitingRequest r = t.park(clock.instant(), false, Receiver.ANY);
        broker.add(record(0, deliveryCount));
        ConsumedMessage m = r.result.get(10, TimeUnit.SECONDS);
        clock.advance(ACK_TIMEOUT);
        t.serve();
        return m;
    }

    /** A topic whose dead letters go to {@code letters}, the broker archiving a record at its second delivery. */
    private ShareTopic lettering(FakeDeadLetters letters) {
        return new ShareTopic("g", TOPIC, config(), clock, ConsumerMetrics.Topic.NONE,
                t -> new ShareWorker(t, this::newConsumer, Duration.ofMillis(10), (topic, answer) -> { }, w -> { }),
                () -> { }, new DeadLettering(letters), 2);
    }

    private WaitingRequest park() {
        return topic.park(clock.instant(), false, Receiver.ANY);
    }

    private static ConsumerRecord<byte[], byte[]> record(long offset, int deliveryCount) {
        return new ConsumerRecord<>(TOPIC, 0, offset, 0L, TimestampType.CREATE_TIME, 0, 1, null,
                new byte[] {(byte) offset}, new RecordHeaders(), Optional.empty(), Optional.of((short) deliveryCount));
    }

    private FakeBroker newConsumer() {
        FakeBroker c = new FakeBroker();
        consumers.add(c);
        return c;
    }

    /**
     * A share consumer of kafka-clients' mock kind, whose polls wait for the test's records as a broker's do: a poll
     * acquires what the broker has, up to a batch, once every record of the last poll is acknowledged (explicit mode);
     * a renewed record comes back with the next poll, and no new record comes with it.
     */
    private final class FakeBroker extends MockShareConsumer<byte[], byte[]> {

        private final List<String> pending = new ArrayList<>();
        private final List<Long> pendingOffsets = new ArrayList<>();
        /** Records the last poll returned, by offset, not acknowledged yet. */
        private final Map<Long, ConsumerRecord<byte[], byte[]>> inFlight = new java.util.TreeMap<>();
        /** Records whose renewal was acknowledged, and those the broker renewed: the next poll returns them. */
        private final Map<Long, ConsumerRecord<byte[], byte[]>> renewing = new java.util.TreeMap<>();
        private final List<ConsumerRecord<byte[], byte[]>> renewed = new ArrayList<>();

        @Override
        public synchronized void subscribe(Collection<String> topics) {
            super.subscribe(topics);
        }

        private AcknowledgementCommitCallback callback;

        @Override
        public void setAcknowledgementCommitCallback(AcknowledgementCommitCallback callback) {
            this.callback = callback;
        }

        @Override
        public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
            synchronized (this) {
                if (!inFlight.isEmpty()) {
                    throw new IllegalStateException("All records must be acknowledged in explicit acknowledgement mode.");
                }
                if (!pending.isEmpty()) {
                    sentWithPolls.addAll(pending);
                    send();
                }
                if (!renewed.isEmpty()) {
                    List<ConsumerRecord<byte[], byte[]>> back = List.copyOf(renewed);
                    renewed.clear();
                    return returned(back);
                }
            }
            try {
                ConsumerRecord<byte[], byte[]> r = broker.poll(Math.min(timeout.toMillis(), 50), TimeUnit.MILLISECONDS);
                if (r == null) {
                    return ConsumerRecords.empty();
                }
                List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>(List.of(r));
                broker.drainTo(batch, ConsumerSettings.SHARE_BATCH - 1);
                polls.incrementAndGet();
                synchronized (this) {
                    return returned(batch);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ConsumerRecords.empty();
            }
        }

        private ConsumerRecords<byte[], byte[]> returned(List<ConsumerRecord<byte[], byte[]>> records) {
            records.forEach(r -> inFlight.put(r.offset(), r));
            return new ConsumerRecords<>(Map.of(new TopicPartition(TOPIC, 0), records), Map.of());
        }

        @Override
        public synchronized void acknowledge(ConsumerRecord<byte[], byte[]> record, AcknowledgeType type) {
            if (inFlight.remove(record.offset()) == null || notInFlight.contains(record.offset())) {
                throw new IllegalStateException("The record cannot be acknowledged.");
            }
            if (type == AcknowledgeType.RENEW) {
                renewing.put(record.offset(), record);
            }
            pending.add(record.offset() + ":" + type.name());
            pendingOffsets.add(record.offset());
        }

        @Override
        public synchronized Map<TopicIdPartition, Optional<KafkaException>> commitSync(Duration timeout) {
            if (pending.isEmpty()) {
                return Map.of();
            }
            KafkaException error = send();
            return Map.of(PARTITION, Optional.ofNullable(error));
        }

        /** The broker takes the pending settlements (or refuses them all, as it does a partition's) and answers. */
        private KafkaException send() {
            boolean refuse = pendingOffsets.stream().anyMatch(refused::contains);
            if (!refuse) {
                settled.addAll(pending);
                renewed.addAll(renewing.values());
            }
            renewing.clear();
            KafkaException error = refuse ? new InvalidRecordStateException("lock gone") : null;
            Set<Long> offsets = Set.copyOf(pendingOffsets);
            pending.clear();
            pendingOffsets.clear();
            if (callback != null) {
                callback.onComplete(Map.of(PARTITION, offsets), error);
            }
            return error;
        }

        @Override
        public Optional<Integer> acquisitionLockTimeoutMs() {
            return Optional.of((int) lock.toMillis());
        }
    }
}
