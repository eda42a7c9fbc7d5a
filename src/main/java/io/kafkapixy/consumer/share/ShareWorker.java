package io.kafkapixy.consumer.share;


import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * The owning thread of one share consumer of a {@link ShareTopic}: it polls a batch of records when the topic asks,
 * sends the settlements of what it holds, renews the locks of what it keeps, and leaves when the topic lets it go. Its {@code ShareConsumer} is used on
 * this thread only ({@link #wakeup()} excepted, which kafka-clients allows from any thread).
 */
final class ShareWorker {

    private static final System.Logger LOG = System.getLogger(ShareWorker.class.getName());
    /** How long one poll waits for a record; a shutdown wakes it sooner. */
    static final Duration POLL_WAIT = Duration.ofMillis(500);
    /** How long a client may hold a record of a consumer's batch before the consumer counts as stuck behind it. */
    static final Duration STUCK_AFTER = Duration.ofMillis(250);
    /** How long sending settlements (and closing) may take. */
    static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(30);
    /** Polls that may pass before renewed records are back; none left means the broker refused their renewal. */
    private static final int RENEW_POLLS = 3;

    private final ShareTopic topic;
    private final Supplier<ShareConsumer<byte[], byte[]>> factory;
    private final Duration retryBackoff;
    /** Told of a failure that stopped the consumer, once per failure (the caller decides what to log). */
    private final BiConsumer<ShareTopic, PixyException> onFatal;
    /** Told once, on this thread, when the consumer is closed and the thread ends. */
    private final java.util.function.Consumer<ShareWorker> onExit;
    private final Thread thread;
    private volatile ShareConsumer<byte[], byte[]> consumer;
    /** Settlements acknowledged to the consumer whose answer has not come; this thread's only. */
    private final Map<Acquired.Key, Acquired> sent = new HashMap<>();
    // guarded by the topic's lock
    final List<Acquired> held = new ArrayList<>();
    /**
     * Since when settlements acknowledged to the consumer wait to be sent (the next poll carries them, else a commit);
     * null when none waits.
     */
    Instant unsentSince;
    boolean polling;
    /** A poll returned: the consumer is a member of the group at the broker. */
    boolean joined;
    /** Its last poll brought no record. */
    boolean dry;
    boolean failed;
    Instant idleSince;

    ShareWorker(ShareTopic topic, Supplier<ShareConsumer<byte[], byte[]>> factory, Duration retryBackoff,
                BiConsumer<ShareTopic, PixyException> onFatal, java.util.function.Consumer<ShareWorker> onExit) {
        this.topic = topic;
        this.factory = factory;
        this.retryBackoff = retryBackoff;
        this.onFatal = onFatal;
        this.onExit = onExit;
        this.thread = Thread.ofPlatform().name("share-" + topic.group + "-" + topic.topic).daemon()
                .unstarted(() -> {
                    try {
                        run();
                    } finally {
                        topic.turns.exited(this);
                        onExit.accept(this);
                    }
                });
    }

    /**
     * Under the topic's lock: whether this consumer cannot fetch for waiting clients because of a slow one: all it
     * fetched last is out with clients (none waits here), and one has had its record for {@link #STUCK_AFTER}.
     */
    boolean stuck(Instant now) {
        boolean slow = false;
        for (Acquired a : held) {
            if (a.settlement != null || a.releaseAt != null) {
                continue;
            }
            if (a.handedAt == null) {
                return false;
            }
            slow |= !now.isBefore(a.handedAt.plus(STUCK_AFTER));
        }
        return slow;
    }

    /** Under the topic's lock: whether every record of this consumer's last poll is settled (it may fetch again). */
    boolean batchSettled() {
        for (Acquired a : held) {
            if (a.settlement == null) {
                return false;
            }
        }
        return true;
    }

    void start() {
        thread.start();
    }

    /** Ends a poll under way (a shutdown). */
    void wakeup() {
        ShareConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    boolean awaitDone(Duration timeout) throws InterruptedException {
        return thread.getState() == Thread.State.NEW || thread.join(timeout);
    }

    private void run() {
        ShareConsumer<byte[], byte[]> c = null;
        try {
            c = factory.get();
            c.subscribe(List.of(topic.topic));
        } catch (RuntimeException e) {
            if (c != null) {
                closeQuietly(c);
            }
            fail(e, true);
            leaveAfterFailure();
            return;
        }
        consumer = c;
        // the broker's answers to settlements, however they were sent (a commit, a poll, the close), on this thread
        c.setAcknowledgementCommitCallback(this::answered);
        try {
            while (true) {
                ShareTurn turn = topic.turns.nextTurn(this);
                if (turn instanceof ShareTurn.Exit) {
                    break;
                }
                switch (turn) {
                    case ShareTurn.Settle s -> settle(c, s.records(), s.sendNow());
                    case ShareTurn.Flush f -> send(c, List.copyOf(sent.values()));
                    case ShareTurn.Poll p -> poll(c, POLL_WAIT);
                    case ShareTurn.Renew r -> renew(c, r.records());
                    case ShareTurn.Exit e -> throw new IllegalStateException("handled above");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(c);
            sent.values().forEach(a -> a.confirmed.completeExceptionally(
                    new IllegalStateException("the share consumer closed without the broker's answer")));
        }
    }

    private void closeQuietly(ShareConsumer<byte[], byte[]> c) {
        try {
            c.close(COMMIT_TIMEOUT);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Failed to close a share consumer of group " + topic.group, e);
        }
    }

    /** Acknowledges {@code records} to the consumer; sends them at once with {@code now}, else with the next poll. */
    private void settle(ShareConsumer<byte[], byte[]> c, List<Acquired> records, boolean now) {
        List<Acquired> taken = new ArrayList<>(records.size());
        for (Acquired a : records) {
            try {
                c.acknowledge(a.record, a.settlement);
                sent.put(a.key(), a);
                taken.add(a);
            } catch (RuntimeException e) {
                // not in the consumer's flight any more: only this one's caller learns it
                topic.unconfirmed(List.of(a), e);
            }
        }
        if (now && !taken.isEmpty()) {
            send(c, taken);
        }
    }

    /** commitSync, once more if a wake-up meant for a poll ended it (the wake-up is spent then). */
    private Map<TopicIdPartition, Optional<KafkaException>> commit(ShareConsumer<byte[], byte[]> c) {
        try {
            return c.commitSync(COMMIT_TIMEOUT);
        } catch (WakeupException e) {
            return c.commitSync(COMMIT_TIMEOUT);
        }
    }

    /** Sends what was acknowledged and waits for the broker's answers to {@code records}. */
    private void send(ShareConsumer<byte[], byte[]> c, List<Acquired> records) {
        try {
            Map<TopicIdPartition, Optional<KafkaException>> results = commit(c);
            // answers the callback did not bring, per partition as commitSync returns them; a record whose partition
            // this commit did not carry went with an earlier poll, and its answer comes through the callback
            for (Acquired a : records) {
                Optional<Optional<KafkaException>> answer = results.entrySet().stream()
                        .filter(e -> e.getKey().topic().equals(a.record.topic())
                                     && e.getKey().partition() == a.record.partition())
                        .findFirst().map(Map.Entry::getValue);
                if (answer.isPresent() && sent.remove(a.key()) != null) {
                    topic.confirmed(a, answer.get().orElse(null));
                }
            }
        } catch (WakeupException e) {
            // a shutdown: the settlements go with the close
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Group {0}: settling {1} records failed: {2}", topic.group,
                    records.size(), e.getMessage());
            records.forEach(a -> sent.remove(a.key()));
            topic.unconfirmed(records, e);
        }
    }

    /** The broker's answer to the settlements of these offsets ({@code error} null: taken). */
    private void answered(Map<TopicIdPartition, Set<Long>> offsets, Exception error) {
        offsets.forEach((tip, set) -> set.forEach(offset -> {
            Acquired a = sent.remove(new Acquired.Key(tip.partition(), offset));
            if (a != null) {
                topic.confirmed(a, error);
            }
        }));
    }

    private void poll(ShareConsumer<byte[], byte[]> c, Duration wait) {
        ConsumerRecords<byte[], byte[]> records;
        // the broker's locks start before the answer arrives: counted from here, they end here no later than there
        java.time.Instant polledAt = topic.clock.instant();
        try {
            records = c.poll(wait);
        } catch (WakeupException e) {
            records = ConsumerRecords.empty();
        } catch (RetriableException | InterruptException e) {
            fail(e, false);
            sleep(retryBackoff);
            return;
        } catch (RuntimeException e) {
            fail(e, true);
            return;
        }
        topic.turns.acquired(this, records, c.acquisitionLockTimeoutMs(), polledAt);
    }

    /**
     * Renews the broker's locks on {@code records} (every unsettled record of the last poll) and polls them back: a
     * renewed record is in flight again only once a poll returned it, and no new record is fetched while renewals are
     * pending, so the poll returns at once with them.
     */
    private void renew(ShareConsumer<byte[], byte[]> c, List<Acquired> records) {
        java.time.Instant sentAt = topic.clock.instant();
        ConsumerRecords<byte[], byte[]> back = ConsumerRecords.empty();
        try {
            for (Acquired a : records) {
                try {
                    c.acknowledge(a.record, org.apache.kafka.clients.consumer.AcknowledgeType.RENEW);
                } catch (IllegalStateException e) {
                    // not in the consumer's flight any more: not brought back, so counted lost below
                }
            }
            commit(c);
            for (int i = 0; i < RENEW_POLLS && back.isEmpty(); i++) {
                try {
                    back = c.poll(POLL_WAIT);
                } catch (WakeupException e) {
                    // a wake-up meant for a poll of new records: spent now, the next poll goes on
                }
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Group {0}: renewing {1} record locks failed: {2}", topic.group,
                    records.size(), e.getMessage());
        }
        topic.turns.renewed(this, records, back, c.acquisitionLockTimeoutMs(), sentAt);
    }

    private void fail(RuntimeException e, boolean fatal) {
        PixyException answer = answer(topic, e);
        if (fatal) {
            onFatal.accept(topic, answer);
        } else {
            LOG.log(System.Logger.Level.WARNING, "Group {0}: {1}; retrying in {2}", topic.group, e.getMessage(),
                    retryBackoff);
        }
        topic.turns.failed(this, answer, fatal, !sent.isEmpty());
    }

    /** A consumer that could not even start: it leaves the pool at once. */
    private void leaveAfterFailure() {
        try {
            while (!(topic.turns.nextTurn(this) instanceof ShareTurn.Exit)) {
                // a worker that failed is let go on its first turn
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What a parked request is answered when the consumer fails with {@code e}. */
    static PixyException answer(ShareTopic topic, RuntimeException e) {
        if (e instanceof UnsupportedVersionException) {
            return PixyException.shareGroupsUnavailable(e.getMessage());
        }
        return new PixyException(ErrorKind.INTERNAL, "share consumer of group " + topic.group + " failed: "
                + e.getMessage());
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
