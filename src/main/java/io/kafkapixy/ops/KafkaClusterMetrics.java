package io.kafkapixy.ops;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import io.helidon.metrics.api.Counter;
import io.helidon.metrics.api.Gauge;
import io.helidon.metrics.api.Meter;
import io.helidon.metrics.api.Tag;
import io.helidon.metrics.api.Timer;
import io.kafkapixy.consumer.ConsumerMetrics;
import io.kafkapixy.consumer.DeadLetter;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.producer.ProducerMetrics;
import io.kafkapixy.proxy.ClusterMetrics;

/** One cluster's meters: {@code cluster} label on all, {@code topic} and {@code group} where they apply. */
final class KafkaClusterMetrics implements ClusterMetrics, ProducerMetrics, ConsumerMetrics {

    private final PixyMetrics metrics;
    private final String cluster;
    private final Map<String, ProducedTopic> produced = new ConcurrentHashMap<>();
    private final Map<List<String>, Counter> produceErrors = new ConcurrentHashMap<>();
    private final Map<List<String>, GroupTopic> groupTopics = new ConcurrentHashMap<>();
    private final Map<String, Counter> rebalances = new ConcurrentHashMap<>();

    KafkaClusterMetrics(PixyMetrics metrics, String cluster) {
        this.metrics = metrics;
        this.cluster = cluster;
    }

    @Override
    public ProducerMetrics producer() {
        return this;
    }

    @Override
    public ConsumerMetrics consumers() {
        return this;
    }

    @Override
    public void produced(String topic, int bytes, long nanos) {
        ProducedTopic t = produced.computeIfAbsent(topic, ProducedTopic::new);
        t.messages.increment();
        t.bytes.increment(bytes);
        t.latency.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void failed(String topic, ErrorKind kind) {
        produceErrors.computeIfAbsent(List.of(topic, kind.name()), k -> metrics.counter("kafkapixy.produce.errors",
                "Produce requests that failed, by error kind", clusterTag(), Tag.create("topic", topic),
                Tag.create("kind", kind.name().toLowerCase()))).increment();
    }

    @Override
    public void asyncPending(LongSupplier pending) {
        metrics.gauge("kafkapixy.produce.async.pending",
                "Async messages accepted and not yet acknowledged by Kafka", pending::getAsLong, clusterTag());
    }

    @Override
    public Topic topic(String group, String topic, String mode) {
        GroupTopic shared = groupTopics.compute(List.of(group, topic, mode), (k, current) -> {
            GroupTopic t = current == null ? new GroupTopic(group, topic, mode) : current;
            t.holders++;
            return t;
        });
        return new Holder(shared);
    }

    @Override
    public void settings(Duration ackTimeout, int maxRetries) {
        metrics.gauge("kafkapixy.consume.ack.timeout.seconds", "The cluster's consumer.ack_timeout: how long a message "
                + "may be out without an ack before it is offered again", () -> ackTimeout.toMillis() / 1000.0,
                clusterTag());
        metrics.gauge("kafkapixy.consume.max.retries", "The cluster's consumer.max_retries: redeliveries before a "
                + "message is given up (-1: never)", () -> maxRetries, clusterTag());
    }

    @Override
    public void rebalanced(String group) {
        rebalances.computeIfAbsent(group, g -> metrics.counter("kafkapixy.consume.rebalances",
                "Changes of this instance's partitions of a group", clusterTag(), Tag.create("group", g)))
                .increment();
    }

    @Override
    public void groupGone(String group) {
        Counter c = rebalances.remove(group);
        if (c != null) {
            metrics.remove(c);
        }
    }

    private Tag clusterTag() {
        return Tag.create("cluster", cluster);
    }

    private final class ProducedTopic {
        final Counter messages;
        final Counter bytes;
        final Timer latency;

        ProducedTopic(String topic) {
            Tag t = Tag.create("topic", topic);
            messages = metrics.counter("kafkapixy.produce.messages", "Messages produced to Kafka", clusterTag(), t);
            bytes = metrics.counter("kafkapixy.produce.bytes", "Bytes of messages produced (key, value, headers)",
                    clusterTag(), t);
            latency = metrics.timer("kafkapixy.produce.latency",
                    "Time from handing a message to the producer until Kafka acknowledged it", clusterTag(), t);
        }
    }

    /**
     * A group-topic's meters, shared by the members of the group on this instance ({@link #holders}, changed only
     * inside {@code groupTopics}' compute); its gauges add up the last snapshots of its holders (a member leaving
     * with messages still out and its successor each report their own), the oldest age being the oldest of theirs.
     */
    private final class GroupTopic {
        private final List<String> key;
        private final Map<Outcome, Counter> requests = new java.util.EnumMap<>(Outcome.class);
        private int holders;
        private final Counter acks;
        private final Counter redeliveries;
        private final Counter dropped;
        private final Counter returned;
        private final Counter rejects;
        private final Counter releases;
        private final Counter lockExpiries;
        private final Counter renewals;
        private final Map<DeadLetter.Reason, Counter> deadLetters = new java.util.EnumMap<>(DeadLetter.Reason.class);
        private final Counter deadLetterFailures;
        private final io.helidon.metrics.api.DistributionSummary deliveryCounts;
        private final Gauge<Integer> parkedGauge;
        private final Gauge<Integer> unackedGauge;
        private final Gauge<Long> lagGauge;
        private final Gauge<Double> oldestGauge;
        /** When the message out the longest without an ack was handed out, or null. */
        private final Set<Holder> snapshots = ConcurrentHashMap.newKeySet();

        GroupTopic(String group, String topic, String mode) {
            key = List.of(group, topic, mode);
            Tag[] tags = {clusterTag(), Tag.create("group", group), Tag.create("topic", topic),
                Tag.create("mode", mode)};
            for (Outcome o : Outcome.values()) {
                Tag[] withOutcome = java.util.Arrays.copyOf(tags, tags.length + 1);
                withOutcome[tags.length] = Tag.create("outcome", o.name().toLowerCase());
                requests.put(o, metrics.counter("kafkapixy.consume.requests", "Consume requests by outcome",
                        withOutcome));
            }
            acks = metrics.counter("kafkapixy.consume.acks",
                    "Acks that changed what is acked, rejects included (share groups: records accepted at the broker)",
                    tags);
            rejects = metrics.counter("kafkapixy.consume.rejects", "Messages clients rejected (share groups: "
                    + "archived at the broker; the other modes ack them, and count them in acks too)", tags);
            releases = metrics.counter("kafkapixy.consume.releases", "Share groups: messages released to the broker "
                    + "to be delivered again (a nack, no client left to take it, a shutdown)", tags);
            lockExpiries = metrics.counter("kafkapixy.consume.lock.expiries", "Share groups: messages whose "
                    + "ack_timeout (from hand-out) or record lock ran out before their ack", tags);
            renewals = metrics.counter("kafkapixy.consume.renewals", "Renewals: a client holding a message "
                    + "restarted its ack_timeout", tags);
            for (DeadLetter.Reason r : DeadLetter.Reason.values()) {
                Tag[] withReason = java.util.Arrays.copyOf(tags, tags.length + 1);
                withReason[tags.length] = Tag.create("reason", r.label());
                deadLetters.put(r, metrics.counter("kafkapixy.consume.dead.letters", "Messages written to the "
                        + "dead-letter topic (and then settled), by reason: retries_exhausted or rejected",
                        withReason));
            }
            deadLetterFailures = metrics.counter("kafkapixy.consume.dead.letter.failures", "Dead letters the "
                    + "dead-letter topic refused: their messages stay unsettled and are tried again", tags);
            deliveryCounts = metrics.summary("kafkapixy.consume.redelivery.attempts",
                    "The delivery number of each message delivered again (2 for the first redelivery)", tags);
            redeliveries = metrics.counter("kafkapixy.consume.redeliveries",
                    "Messages offered again because their ack did not come within ack_timeout", tags);
            dropped = metrics.counter("kafkapixy.consume.dropped",
                    "Messages given up after max_retries redeliveries and dropped (no dead-letter topic is set)", tags);
            returned = metrics.counter("kafkapixy.consume.returned",
                    "Messages handed to a request whose client was gone (call ended, answer not written), offered "
                    + "again at once instead of being lost or acked", tags);
            parkedGauge = metrics.gauge("kafkapixy.consume.parked", "Consume requests waiting for a message",
                    () -> snapshots.stream().mapToInt(h -> h.parked).sum(), tags);
            unackedGauge = metrics.gauge("kafkapixy.consume.unacked", "Messages offered and not acked yet",
                    () -> snapshots.stream().mapToInt(h -> h.unacked).sum(), tags);
            lagGauge = metrics.gauge("kafkapixy.consume.lag",
                    "Messages between the committed offsets and the ends of the partitions held here",
                    () -> snapshots.stream().mapToLong(h -> h.lag).sum(), tags);
            oldestGauge = metrics.gauge("kafkapixy.consume.oldest.unacked.seconds", "How long the message out the "
                    + "longest without an ack has been out (since first handed out; share groups: since acquired); "
                    + "0 when none is out", this::oldestAge, tags);
        }

        private double oldestAge() {
            Instant since = null;
            for (Holder h : snapshots) {
                Instant out = h.oldestOut;
                if (out != null && (since == null || out.isBefore(since))) {
                    since = out;
                }
            }
            return since == null ? 0 : Math.max(0, Duration.between(since, Instant.now()).toMillis() / 1000.0);
        }

        public void request(Outcome outcome) {
            requests.get(outcome).increment();
        }

        public void acked() {
            acks.increment();
        }

        public void acked(int n) {
            acks.increment(n);
        }

        public void redelivered() {
            redeliveries.increment();
        }

        public void dropped() {
            dropped.increment();
        }

        public void rejected() {
            rejects.increment();
        }

        public void released() {
            releases.increment();
        }

        public void lockExpired() {
            lockExpiries.increment();
        }

        public void renewed() {
            renewals.increment();
        }

        public void deadLettered(DeadLetter.Reason reason) {
            deadLetters.get(reason).increment();
        }

        public void deadLetterFailed() {
            deadLetterFailures.increment();
        }

        public void redeliveredAt(int attempt) {
            redeliveries.increment();
            deliveryCounts.record(attempt);
        }

        public void returned() {
            returned.increment();
        }

        /** The last holder's call unregisters the meters; later updates go to meters no scrape shows. */
        public void remove() {
            boolean[] last = new boolean[1];
            groupTopics.computeIfPresent(key, (k, current) -> {
                if (current != this) {
                    return current;
                }
                last[0] = --holders == 0;
                return last[0] ? null : this;
            });
            if (last[0]) {
                List<Meter> meters = new java.util.ArrayList<>(requests.values());
                meters.addAll(List.of(acks, redeliveries, dropped, returned, rejects, releases, lockExpiries,
                        renewals, deadLetterFailures, deliveryCounts, parkedGauge, unackedGauge, lagGauge,
                        oldestGauge));
                meters.addAll(deadLetters.values());
                meters.forEach(metrics::remove);
            }
        }
    }

    /** One holder's view of a group-topic's meters: the counters are shared, the snapshot is its own. */
    private static final class Holder implements Topic {
        private final GroupTopic shared;
        private volatile int parked;
        private volatile int unacked;
        private volatile long lag;
        /** When the message this holder has had out the longest without an ack was handed out, or null. */
        private volatile Instant oldestOut;

        Holder(GroupTopic shared) {
            this.shared = shared;
            shared.snapshots.add(this);
        }

        @Override
        public void request(Outcome outcome) {
            shared.request(outcome);
        }

        @Override
        public void acked() {
            shared.acked();
        }

        @Override
        public void acked(int n) {
            shared.acked(n);
        }

        @Override
        public void redelivered() {
            shared.redelivered();
        }

        @Override
        public void dropped() {
            shared.dropped();
        }

        @Override
        public void returned() {
            shared.returned();
        }

        @Override
        public void rejected() {
            shared.rejected();
        }

        @Override
        public void released() {
            shared.released();
        }

        @Override
        public void lockExpired() {
            shared.lockExpired();
        }

        @Override
        public void redeliveredAt(int attempt) {
            shared.redeliveredAt(attempt);
        }

        @Override
        public void renewed() {
            shared.renewed();
        }

        @Override
        public void deadLettered(DeadLetter.Reason reason) {
            shared.deadLettered(reason);
        }

        @Override
        public void deadLetterFailed() {
            shared.deadLetterFailed();
        }

        @Override
        public void state(int parked, int unacked, long lag, Instant oldestOut) {
            this.parked = parked;
            this.unacked = unacked;
            this.lag = lag;
            this.oldestOut = oldestOut;
        }

        @Override
        public void oldestOut(Instant since) {
            this.oldestOut = since;
        }

        @Override
        public void remove() {
            shared.snapshots.remove(this);
            shared.remove();
        }
    }
}
