package io.kafkapixy.consumer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import io.kafkapixy.offset.store.Committed;
import io.kafkapixy.offset.store.OffsetStore;
import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.testing.MutableClock;
import io.kafkapixy.testing.TestKafka;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * One group member wired as in production ({@link GroupState}, {@link MemberLoop}, {@link Handover},
 * {@link KafkaMembership}) over Kafka's {@link MockConsumer} and a {@link MutableClock}. The test's thread is the
 * owning thread: it calls {@link MemberLoop#step()}; rebalances happen inside the next poll, as Kafka does them.
 */
final class MemberRig {

    static final String GROUP = "g";
    static final String TOPIC = "t";
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");


    final MutableClock clock = new MutableClock(T0);
    final TestConsumer kafka = new TestConsumer();
    /** The monotonic clock the member's pause watch reads; still unless a test moves it, so no test depends on this
     *  machine's scheduling. */
    final java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
    final PauseWatch pauses = PauseWatch.manual(nanos::get);
    final Meters meters = new Meters();
    final ConsumerConfig config;
    final GroupState state;
    final MemberLoop loop;
    /** What the group has committed, as Kafka stores it: read at assignment, written by every commit. */
    final Map<TopicPartition, Committed> commits = new ConcurrentHashMap<>();
    /** Fails this many reads of committed offsets (a coordinator not available yet). */
    final AtomicInteger failOffsetReads = new AtomicInteger();

    MemberRig(ConsumerConfig config) {
        this(config, KafkaMembership.FACTORY.revokeWaitLimit());
    }

    MemberRig(ConsumerConfig config, Duration revokeWaitLimit) {
        this(config, revokeWaitLimit, DeadLettering.NONE);
    }

    /** A member whose dead letters go to {@code letters}. */
    MemberRig(ConsumerConfig config, DeadLettering letters) {
        this(config, KafkaMembership.FACTORY.revokeWaitLimit(), letters);
    }

    private MemberRig(ConsumerConfig config, Duration revokeWaitLimit, DeadLettering letters) {
        this.config = config;
        this.state = new GroupState(GROUP, config, clock, meters, letters);
        OffsetStore store = new OffsetStore() {
            @Override
            public Map<TopicPartition, Committed> fetch(String group, Collection<TopicPartition> partitions) {
                if (failOffsetReads.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    throw new KafkaException("coordinator not available");
                }
                Map<TopicPartition, Committed> out = new HashMap<>();
                partitions.forEach(tp -> out.put(tp, commits.getOrDefault(tp, Committed.NONE)));
                return out;
            }

            @Override
            public void commit(String group, Map<TopicPartition, Committed> offsets) {
                commits.putAll(offsets);
            }
        };
        this.loop = new MemberLoop(state, config, clock, store, () -> kafka, KafkaMembership.factory(pauses), meters,
                revokeWaitLimit, StartGate.OPEN);
    }

    /** A topic of {@code partitions} partitions whose logs span [begin, end). */
    void topic(String topic, int partitions, long begin, long end) {
        Node node = new Node(0, "localhost", 9092);
        Map<TopicPartition, Long> begins = new HashMap<>();
        Map<TopicPartition, Long> ends = new HashMap<>();
        PartitionInfo[] infos = new PartitionInfo[partitions];
        for (int p = 0; p < partitions; p++) {
            infos[p] = new PartitionInfo(topic, p, node, new Node[]{node}, new Node[]{node});
            begins.put(new TopicPartition(topic, p), begin);
            ends.put(new TopicPartition(topic, p), end);
        }
        kafka.updatePartitions(topic, List.of(infos));
        kafka.updateBeginningOffsets(begins);
        kafka.updateEndOffsets(ends);
    }

    static TopicPartition tp(int partition) {
        return new TopicPartition(TOPIC, partition);
    }

    /** A consume request arriving now. */
    WaitingRequest request() {
        return state.park(TOPIC, clock.instant(), false, Receiver.ANY);
    }

    /** The next poll gives this member exactly these partitions (revoking the others). */
    void rebalanceTo(TopicPartition... partitions) {
        kafka.schedulePollTask(() -> kafka.rebalance(List.of(partitions)));
    }

    /** Records at these offsets of a partition, fetched by the next poll; the value is "v" + offset. */
    void fetchable(TopicPartition tp, long... offsets) {
        for (long offset : offsets) {
            kafka.addRecord(new ConsumerRecord<>(tp.topic(), tp.partition(), offset, null,
                    ("v" + offset).getBytes(StandardCharsets.UTF_8)));
        }
        Map<TopicPartition, Long> end = new HashMap<>();
        end.put(tp, offsets[offsets.length - 1] + 1);
        kafka.updateEndOffsets(end);
    }

    /**
     * Opens the member and takes a first step, in which it subscribes and is assigned {@code partitions}. A request
     * made for the purpose keeps the topic wanted and leaves the queue afterwards.
     */
    void join(TopicPartition... partitions) {
        WaitingRequest asking = request();
        loop.open();
        rebalanceTo(partitions);
        loop.step();
        state.giveUp(TOPIC, asking, io.kafkapixy.errors.PixyException.longPollTimeout());
    }

    static long offset(WaitingRequest r) {
        return r.result.getNow(null).offset();
    }

    /** Waits (in real time, bounded) until the condition holds; for conditions another thread makes true. */
    static void await(String what, BooleanSupplier condition) {
        TestKafka.Waits.until(Duration.ofSeconds(5), what, condition::getAsBoolean);
    }

    /** Kafka's mock consumer, with commits that land in {@link #commits} and can be made to fail. */
    final class TestConsumer extends MockConsumer<byte[], byte[]> {

        volatile boolean failCommits;
        volatile int rebalancesInProgress;

        TestConsumer() {
            // as ConsumerSettings sets it: where a partition not set up yet would start
            super("earliest");
        }

        @Override
        public synchronized void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets,
                                             OffsetCommitCallback callback) {
            if (failCommits) {
                callback.onComplete(offsets, new org.apache.kafka.common.errors.TimeoutException("commit failed"));
                return;
            }
            record(offsets);
            super.commitAsync(offsets, callback);
        }

        @Override
        public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
            if (rebalancesInProgress > 0) {
                rebalancesInProgress--;
                throw new org.apache.kafka.common.errors.RebalanceInProgressException("rebalancing");
            }
            if (failCommits) {
                throw new org.apache.kafka.common.errors.TimeoutException("commit failed");
            }
            record(offsets);
            super.commitSync(offsets, timeout);
        }

        private void record(Map<TopicPartition, OffsetAndMetadata> offsets) {
            offsets.forEach((tp, o) -> commits.put(tp, new Committed(o.offset(), o.metadata())));
        }
    }

    /** Counts what the member reports. */
    static final class Meters implements ConsumerMetrics {

        final AtomicInteger rebalances = new AtomicInteger();
        final AtomicInteger acks = new AtomicInteger();
        final AtomicInteger redeliveries = new AtomicInteger();
        final AtomicInteger drops = new AtomicInteger();
        final AtomicInteger returns = new AtomicInteger();
        final AtomicInteger renewals = new AtomicInteger();
        final AtomicInteger rejects = new AtomicInteger();
        final java.util.Queue<DeadLetter.Reason> deadLetters = new java.util.concurrent.ConcurrentLinkedQueue<>();
        final AtomicInteger deadLetterFailures = new AtomicInteger();

        @Override
        public Topic topic(String group, String topic, String mode) {
            return new Topic() {
                @Override
                public void request(Outcome outcome) {
                }

                @Override
                public void acked() {
                    acks.incrementAndGet();
                }

                @Override
                public void redelivered() {
                    redeliveries.incrementAndGet();
                }

                @Override
                public void dropped() {
                    drops.incrementAndGet();
                }

                @Override
                public void returned() {
                    returns.incrementAndGet();
                }

                @Override
                public void renewed() {
                    renewals.incrementAndGet();
                }

                @Override
                public void rejected() {
                    rejects.incrementAndGet();
                }

                @Override
                public void deadLettered(DeadLetter.Reason reason) {
                    deadLetters.add(reason);
                }

                @Override
                public void deadLetterFailed() {
                    deadLetterFailures.incrementAndGet();
                }

                @Override
                public void state(int parked, int unacked, long lag, java.time.Instant oldestOut) {
                }

                @Override
                public void remove() {
                }
            };
        }

        @Override
        public void rebalanced(String group) {
            rebalances.incrementAndGet();
        }
    }
}
