package io.kafkapixy.consumer.share;

import io.kafkapixy.consumer.ConsumerMetrics;
import io.kafkapixy.consumer.ConsumerStream;
import io.kafkapixy.consumer.DeadLettering;
import io.kafkapixy.consumer.Deadlines;
import io.kafkapixy.consumer.GroupKind;
import io.kafkapixy.consumer.InFlight;
import io.kafkapixy.consumer.InstanceLimits;
import io.kafkapixy.consumer.PendingConsume;
import io.kafkapixy.consumer.Receiver;
import io.kafkapixy.consumer.Settlement;
import io.kafkapixy.consumer.WaitingRequest;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.errors.InvalidRecordStateException;

/**
 * The share groups of one cluster on this instance: a {@link ShareTopic} per group and topic with live requests here,
 * made by the first request and gone when its consumers have left. The broker keeps what was delivered, acked and
 * redelivered; this instance keeps only the records out with its clients.
 *
 * <p>Thread-safe. Before a group's first share consumer starts here, its settings are made the group's on the
 * broker ({@link ShareGroupSetup}).
 */
public final class ShareGroups implements GroupKind {

    private static final System.Logger LOG = System.getLogger(ShareGroups.class.getName());

    /**
     * After a share consumer failed for good (no share groups on the brokers, a classic group's id), how long its
     * group and topic's requests get its answer at once instead of starting another: each start costs a join, and
     * kafka-clients logs each refusal.
     */
    static final Duration FAILURE_HOLD = Duration.ofSeconds(10);

    private record Key(String group, String topic) {
    }

    private record Failure(PixyException answer, Instant at) {
    }

    private final ConsumerConfig config;
    private final Function<String, ShareConsumer<byte[], byte[]>> factory;
    private final ShareGroupSetup setup;
    private final ConsumerMetrics metrics;
    private final InstanceLimits limits;
    private final Clock clock;
    private final Deadlines deadlines;
    private final DeadLettering letters;
    /** Deliveries after which the broker archives a released record; 0 when not known. */
    private final int deliveryLimit;
    private final Map<Key, ShareTopic> topics = new ConcurrentHashMap<>();
    /** Every share consumer whose thread has not ended, those of topics gone included: close waits for them. */
    private final Set<ShareWorker> live = ConcurrentHashMap.newKeySet();
    private final Set<String> prepared = ConcurrentHashMap.newKeySet();
    private final Set<Key> started = ConcurrentHashMap.newKeySet();
    /** Each started topic's number of partitions, where known. */
    private final Map<Key, Integer> partitionCounts = new ConcurrentHashMap<>();
    /** Failures already logged, per group: a broker without share groups is said once, not per request. */
    private final Set<String> logged = ConcurrentHashMap.newKeySet();
    /** The last failure that stopped a consumer, per group and topic, while {@link #FAILURE_HOLD} lasts. */
    private final Map<Key, Failure> failures = new ConcurrentHashMap<>();
    private volatile boolean closing;

    public ShareGroups(ConsumerConfig config, Function<String, ShareConsumer<byte[], byte[]>> factory, ShareGroupSetup setup,
                ConsumerMetrics metrics, InstanceLimits limits, Clock clock, Deadlines deadlines,
                DeadLettering letters) {
        this.config = config;
        this.letters = letters;
        this.deliveryLimit = config.maxRetries() >= 0 ? config.maxRetries() + 1 : setup.deliveryLimit();
        this.factory = factory;
        this.setup = setup;
        this.metrics = metrics;
        this.limits = limits;
        this.clock = clock;
        this.deadlines = deadlines;
    }

    /**
     * Parks a request for a record of {@code topic}, answered {@code long polling timeout} at its deadline. An
     * auto-ack request's record is accepted once its transport says it was delivered.
     *
     * @throws PixyException shutting down, too many requests, or the broker refused the group's settings
     */
    @Override
    public PendingConsume consume(String group, String topic, Instant arrival, boolean autoAck, Receiver receiver) {
        prepare(group);
        startTopic(group, topic);
        throwIfFailedLately(new Key(group, topic));
        while (true) {
            ShareTopic t = openTopic(group, topic);
            WaitingRequest r = t.park(arrival, autoAck, receiver);
            if (r == null) {
                continue;
            }
            return PendingConsume.parked(t, topic, r, deadlines);
        }
    }

    /**
     * Opens a stream of {@code group}'s records of {@code topics}, served beside the unary requests by the same share
     * consumers.
     *
     * @throws PixyException shutting down, or the broker refused the group's settings
     */
    @Override
    public ShareStream openStream(String group, List<String> topics, long maxCredits, ConsumerStream.Sink sink) {
        prepare(group);
        topics.forEach(topic -> startTopic(group, topic));
        topics.forEach(topic -> throwIfFailedLately(new Key(group, topic)));
        ShareStream stream = new ShareStream(topics, maxCredits, config.ackTimeout(), sink);
        Map<String, ShareTopic> serving = new java.util.LinkedHashMap<>();
        try {
            for (String topic : topics) {
                while (true) {
                    ShareTopic t = openTopic(group, topic);
                    if (t.streamDesk.attach(stream)) {
                        serving.put(topic, t);
                        break;
                    }
                }
            }
        } catch (RuntimeException e) {
            // attached to some topics only: nobody could close it
            serving.values().forEach(t -> t.streamDesk.detach(stream));
            throw e;
        }
        stream.serveFrom(serving);
        stream.resume();
        return stream;
    }

    /**
     * The group and topic's state, made when it is new. A topic made while {@link #close} runs is shut down here
     * (close sets {@code closing} before it looks at the topics), so none escapes it.
     *
     * @throws PixyException shutting down
     */
    private ShareTopic openTopic(String group, String topic) {
        if (closing) {
            throw PixyException.shuttingDown();
        }
        ShareTopic t = this.topics.computeIfAbsent(new Key(group, topic), this::newTopic);
        if (closing) {
            t.shutdown();
            throw PixyException.shuttingDown();
        }
        return t;
    }

    /**
     * Whether a request would first wait for the broker to take the group's settings or the topic's start, or make
     * the topic's state here (its consumers' pool and meters).
     */
    @Override
    public boolean needsSetUp(String group, String topic) {
        Key key = new Key(group, topic);
        return !prepared.contains(group) || !started.contains(key) || !topics.containsKey(key);
    }

    private void prepare(String group) {
        if (!prepared.contains(group)) {
            setup.prepare(group);
            prepared.add(group);
        }
    }

    private void startTopic(String group, String topic) {
        Key key = new Key(group, topic);
        if (started.add(key)) {
            int partitions = setup.startTopic(group, topic);
            if (partitions > 0) {
                partitionCounts.put(key, partitions);
                // a request that raced this one may have made the topic already
                ShareTopic made = topics.get(key);
                if (made != null) {
                    made.partitions = partitions;
                }
            }
        }
    }

    private ShareTopic newTopic(Key k) {
        InstanceLimits.Slot slot = limits.enterGroup();
        ShareTopic[] made = new ShareTopic[1];
        made[0] = new ShareTopic(k.group(), k.topic(), config, clock, metrics.topic(k.group(), k.topic(), "share"),
                t -> {
                    ShareWorker w = new ShareWorker(t, () -> factory.apply(k.group()), config.retryBackoff(),
                            this::failed, live::remove);
                    live.add(w);
                    return w;
                },
                () -> {
                    partitionCounts.remove(k);
                    topics.remove(k, made[0]);
                    started.remove(k);
                    slot.close();
                }, letters, deliveryLimit);
        made[0].partitions = partitionCounts.getOrDefault(k, 0);
        return made[0];
    }

    private void throwIfFailedLately(Key key) {
        Failure f = failures.get(key);
        if (f != null) {
            if (clock.instant().isBefore(f.at().plus(FAILURE_HOLD))) {
                throw f.answer();
            }
            failures.remove(key, f);
        }
    }

    private void failed(ShareTopic topic, PixyException answer) {
        Instant now = clock.instant();
        failures.values().removeIf(f -> !now.isBefore(f.at().plus(FAILURE_HOLD)));
        failures.put(new Key(topic.group, topic.topic), new Failure(answer, now));
        if (logged.size() > 1_000) {
            logged.clear();
        }
        if (logged.add(topic.group + "\n" + answer.getMessage())) {
            LOG.log(Level.ERROR, "Group {0}: {1}", topic.group, answer.getMessage());
        }
    }

    @Override
    public List<org.apache.kafka.common.header.Header> heldHeaders(String group, String topic, int partition,
                                                                long offset) {
        ShareTopic t = topics.get(new Key(group, topic));
        return t == null ? null : t.heldHeaders(partition, offset);
    }

    /** Acks quietly (an ack carried by a consume request): dropped unless the record is out from here. */
    @Override
    public void ackQuietly(String group, String topic, int partition, long offset) {
        ShareTopic t = topics.get(new Key(group, topic));
        if (t != null) {
            t.settle(partition, offset, AcknowledgeType.ACCEPT, false);
        }
    }

    /**
     * Settles a record this instance handed out: accepted for an ack; rejected for a reject (after its dead letter is
     * written, when a dead-letter topic is set); its ack_timeout restarted for a renewal. Completes once the broker took
     * it, or with a {@link PixyException}: {@code ACK_FAILED} with {@code acks channel missing ...} when this instance
     * never handed out a message of that partition, {@code ack timeout} when that one is not out from here (its lock
     * ran out, or it was settled already) or the broker found its lock gone; the dead letter's failure as it is.
     */
    @Override
    public CompletableFuture<Void> settle(String group, String topic, int partition, long offset, Settlement how) {
        ShareTopic t = topics.get(new Key(group, topic));
        if (t == null || !t.served(partition)) {
            return CompletableFuture.failedFuture(PixyException.acksChannelMissing(group, topic, partition));
        }
        CompletableFuture<Void> confirmed = switch (how) {
            case ACK -> t.settle(partition, offset, AcknowledgeType.ACCEPT, true);
            case RENEW -> t.renew(partition, offset) ? CompletableFuture.completedFuture(null) : null;
            case REJECT -> t.letters.enabled() ? t.letters.reject(partition, offset)
                    : t.settle(partition, offset, AcknowledgeType.REJECT, true);
        };
        if (confirmed == null) {
            return CompletableFuture.failedFuture(PixyException.ackTimeout());
        }
        return confirmed.orTimeout(ShareWorker.COMMIT_TIMEOUT.toMillis() + 5_000, TimeUnit.MILLISECONDS)
                .exceptionallyCompose(e -> {
                    Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                            ? e.getCause() : e;
                    if (cause instanceof PixyException p) {
                        return CompletableFuture.failedFuture(p);
                    }
                    return CompletableFuture.failedFuture(
                            cause instanceof InvalidRecordStateException || cause instanceof TimeoutException
                            || cause instanceof org.apache.kafka.common.errors.TimeoutException
                                    ? PixyException.ackTimeout()
                                    : new PixyException(ErrorKind.ACK_FAILED, String.valueOf(cause.getMessage()),
                                    cause));
                });
    }

    /** The share groups with topics on this instance, each a copy for {@link InFlight} ({@code only}: just it). */
    @Override
    public List<InFlight.Group> inFlight(String only, InFlight.Rows rows) {
        java.util.TreeMap<String, java.util.TreeMap<String, ShareTopic>> byGroup = new java.util.TreeMap<>();
        topics.forEach((k, t) -> {
            if (only == null || only.equals(k.group())) {
                byGroup.computeIfAbsent(k.group(), g -> new java.util.TreeMap<>()).put(k.topic(), t);
            }
        });
        List<InFlight.Group> groups = new java.util.ArrayList<>();
        byGroup.forEach((group, groupTopics) -> {
            Map<ShareStream, Integer> held = new java.util.LinkedHashMap<>();
            List<InFlight.Topic> views = new java.util.ArrayList<>();
            java.util.Set<ShareStream> streams = new java.util.LinkedHashSet<>();
            groupTopics.values().forEach(t -> {
                views.add(t.view(rows, held));
                streams.addAll(t.streamsNow());
            });
            List<InFlight.Stream> streamViews = new java.util.ArrayList<>();
            for (ShareStream s : streams) {
                if (rows.take()) {
                    streamViews.add(s.view(held.getOrDefault(s, 0)));
                }
            }
            groups.add(new InFlight.Group(group, "share", closing ? "shutting_down" : "serving", List.copyOf(views),
                    List.copyOf(streamViews)));
        });
        return groups;
    }

    @Override
    public int parkedRequests() {
        int n = 0;
        for (ShareTopic t : topics.values()) {
            n += t.parkedRequests();
        }
        return n;
    }

    /**
     * Answers parked requests 503 and releases what no client has; the records clients have wait for their acks until
     * {@code shutdown_timeout}, then every share consumer closes.
     */
    @Override
    public void beginClose() {
        closing = true;
        topics.values().forEach(ShareTopic::shutdown);
    }

    @Override
    public void awaitClosed(long deadlineNanos) {
        // consumers started meanwhile are in live too; each ends once its topic let it go and it closed
        while (!live.isEmpty()) {
            ShareWorker w = live.iterator().next();
            try {
                if (!w.awaitDone(Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime())))) {
                    LOG.log(Level.WARNING, "Share consumers did not stop in time");
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            live.remove(w);
        }
    }
}
