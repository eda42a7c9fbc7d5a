package io.kafkapixy.consumer;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.kafkapixy.offset.Offer;
import io.kafkapixy.offset.OffsetTracker;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * One partition assigned to this instance for a group: the records fetched but not yet offered, the offers awaiting
 * acks, and the {@link OffsetTracker} that decides what is committed.
 *
 * <p>Not thread-safe: guarded by the {@link GroupState}'s lock. Time is passed in.
 */
final class PartitionState {

    private static final System.Logger LOG = System.getLogger(PartitionState.class.getName());
    /** A partition on its way out waits by slices of this while a dead letter of it is being written. */
    private static final Duration LETTER_WAIT = Duration.ofMillis(100);

    final TopicPartition tp;
    private final OffsetTracker tracker;
    private final ArrayDeque<ConsumerRecord<byte[], byte[]>> fetched = new ArrayDeque<>();
    /** Messages out with clients and not acked, by offset, with when each was first handed out. */
    private final Map<Long, Out> offered = new HashMap<>();
    /** Offsets with no record, skipped by the committed offset. */
    private final RecordGaps gaps;
    /** A retry taken from the tracker, waiting for a request (the original's one-slot output). */
    private Offer dueRetry;
    private long submittedOffset;
    /** The offset last committed or being committed, for operators: unlike submittedOffset, kept after a failure. */
    private long lastSubmitted;
    private String submittedMetadata;
    private boolean revoking;
    /** Whether fetching was last stopped (buffer full or too many offers out), as {@link FetchBuffer} decided. */
    private boolean paused;
    /** The partition's end as the consumer last knew it, or -1. */
    private long endOffset = -1;
    /** The meters of the topic this partition is served under; set when it joins its {@link TopicState}. */
    private ConsumerMetrics.Topic metrics = ConsumerMetrics.Topic.NONE;
    /** Messages whose dead letter is being written, out of circulation. */
    final Lettering lettering;
    /** Where a message whose retries ran out goes; null: dropped as if acked, as the original does. */
    private Lettering.Exhausted exhausted;

    /**
     * {@code committed} is what Kafka has for the partition now (so an unchanged state is not committed again);
     * {@code fetchFrom} is where fetching starts.
     */
    PartitionState(TopicPartition tp, OffsetTracker tracker, OffsetAndMetadata committed, long fetchFrom) {
        this.tp = tp;
        this.tracker = tracker;
        this.gaps = new RecordGaps(tracker, fetchFrom);
        this.submittedOffset = committed == null ? -1 : committed.offset();
        this.lastSubmitted = submittedOffset;
        this.submittedMetadata = committed == null ? "" : committed.metadata();
        this.lettering = new Lettering(tp, tracker, offered);
    }

    /** Buffers a fetched record; see {@link RecordGaps#fetched} for the offsets it skipped. */
    void addFetched(ConsumerRecord<byte[], byte[]> record) {
        gaps.fetched(record.offset());
        fetched.addLast(record);
    }

    /** The consumer's fetch position moved to {@code position}; see {@link RecordGaps#fetchedUpTo}. */
    void fetchedUpTo(long position) {
        gaps.fetchedUpTo(position);
    }

    int offeredCount() {
        return tracker.offeredCount();
    }

    /** A paused partition may fetch again: its buffer is below {@code lowWater} and its offers within bounds. */
    boolean canRefill(int lowWater, int maxPending) {
        return fetched.size() < lowWater && tracker.offeredCount() <= maxPending;
    }

    /** Fetching stops while the buffer is full or more than {@code maxPending} offers await acks. */
    boolean shouldPauseFetching(int bufferLimit, int maxPending) {
        return fetched.size() >= bufferLimit || tracker.offeredCount() > maxPending;
    }

    void reportTo(ConsumerMetrics.Topic topicMetrics) {
        this.metrics = topicMetrics;
    }

    ConsumerMetrics.Topic metrics() {
        return metrics;
    }

    /** From now on a message whose retries ran out goes to {@code to} instead of being dropped. */
    void giveUpTo(Lettering.Exhausted to) {
        this.exhausted = to;
    }

    void startRevoking() {
        revoking = true;
    }

    /**
     * The next message to offer, recorded as offered at {@code now}: a retry that is due comes first, then a fetched
     * message that is not acked yet, as long as no more than {@code maxPending} offers await acks. Offers retried
     * more than {@code maxRetries} times (when ≥ 0) are dropped as if acked.
     */
    ConsumedMessage next(Instant now, int maxPending, int maxRetries) {
        if (revoking) {
            return null;
        }
        takeDueRetry(now, maxRetries);
        if (dueRetry != null) {
            Out out = offered.get(dueRetry.offset());
            int attempt = dueRetry.retryNo() + 1;
            dueRetry = null;
            if (out != null) {
                if (attempt > 1) {
                    // a first delivery that never reached its client comes back as attempt 1: not a redelivery
                    metrics.redeliveredAt(attempt);
                }
                return message(out.record, attempt);
            }
        }
        if (tracker.offeredCount() > maxPending) {
            return null;
        }
        ConsumerRecord<byte[], byte[]> record;
        while ((record = fetched.pollFirst()) != null) {
            long offset = record.offset();
            if (tracker.isAcked(offset) || offered.containsKey(offset)) {
                continue;
            }
            tracker.onOffered(offset, now);
            offered.put(offset, new Out(record, now));
            return message(record, 1);
        }
        return null;
    }

    /**
     * Moves the next due retry into the one-slot output, dropping (as acked) offers retried more than
     * {@code maxRetries} times when that is ≥ 0. Called for every dispatch and, by the owning thread, every poll
     * interval, so exhausted offers are dropped even when no request comes (the original checks every second).
     */
    void takeDueRetry(Instant now, int maxRetries) {
        if (exhausted != null && !lettering.none()) {
            for (Lettering.Due d : lettering.due(now)) {
                exhausted.giveUp(this, d.message(), d.deliveries());
            }
        }
        while (dueRetry == null) {
            Optional<Offer> retry = tracker.nextRetry(now);
            if (retry.isEmpty()) {
                return;
            }
            Offer offer = retry.get();
            if (maxRetries >= 0 && offer.retryNo() > maxRetries) {
                Out out = offered.get(offer.offset());
                if (exhausted != null && out != null) {
                    // delivered retryNo times
                    exhausted.giveUp(this, lettering.withdraw(offer.offset(), offer.retryNo()), offer.retryNo());
                    continue;
                }
                LOG.log(Level.WARNING, "Too many retries: retryNo={0}, offset={1}, partition={2}, msg={3}",
                        offer.retryNo(), offer.offset(), tp, out == null || out.record.value() == null ? ""
                                : Base64.getEncoder().encodeToString(out.record.value()));
                ack(offer.offset());
                metrics.dropped();
                continue;
            }
            dueRetry = offer;
        }
    }

    /**
     * A client gives back the message at {@code offset} that it got as delivery {@code attempt}: it is offered again
     * from {@code due} on (a retry, counted against {@code max_retries}), unless it was acked or delivered again
     * since. Returns whether it will be.
     */
    boolean giveBack(long offset, int attempt, Instant due) {
        if (!offered.containsKey(offset)) {
            return false;
        }
        // nextRetry takes offers whose deadline is before the time it is asked at
        return tracker.reschedule(offset, attempt - 1, due.minusNanos(1));
    }

    /**
     * A message handed out as delivery {@code attempt} never reached its client: offered again at once as the same
     * attempt, not counted as a retry. Returns whether it will be.
     */
    boolean undoOffer(long offset, int attempt, Instant now) {
        return offered.containsKey(offset) && tracker.reschedule(offset, attempt - 1, now.minusNanos(1), true);
    }

    /**
     * A client holding the message at {@code offset} restarts its ack_timeout: it is offered again from {@code due}
     * unless acked first. False when it is not out with a client (acked, waiting to be offered again, or given up).
     */
    boolean renew(long offset, Instant due) {
        // on its way to another member, a partition waits for its offers' deadlines: they may not move
        if (revoking || !isOut(offset)) {
            return false;
        }
        return tracker.reschedule(offset, -1, due);
    }

    /**
     * Takes the message at {@code offset} out of circulation while its dead letter is written; returns it as its
     * client last got it, or null when it is not out with a client.
     */
    ConsumedMessage withdraw(long offset) {
        if (!isOut(offset)) {
            return null;
        }
        return lettering.withdraw(offset, -1);
    }

    /** Out with a client: offered, not acked, not due again and waiting for a request. */
    boolean isOut(long offset) {
        return offered.containsKey(offset) && (dueRetry == null || dueRetry.offset() != offset);
    }

    /** The dead letter of {@code offset} is written: the message counts as acked. False when it is not here. */
    boolean lettered(long offset) {
        if (!lettering.done(offset)) {
            return false;
        }
        tracker.onAcked(offset);
        gaps.close();
        return true;
    }

    /** Whether the message at {@code offset} is out with a client, awaiting its ack. */
    boolean isOffered(long offset) {
        return offered.containsKey(offset);
    }

    /** The record headers of the message at {@code offset} when it is out with a client, else null. */
    java.util.List<org.apache.kafka.common.header.Header> heldHeaders(long offset) {
        Out out = offered.get(offset);
        return out == null ? null : java.util.Arrays.asList(out.record().headers().toArray());
    }

    /**
     * Applies an ack; false when it changed nothing (a duplicate, or an offset already committed). A message on its
     * way to the dead-letter topic takes no ack: see {@link Lettering#holds}.
     */
    boolean ack(long offset) {
        offered.remove(offset);
        if (dueRetry != null && dueRetry.offset() == offset) {
            dueRetry = null;
        }
        var outcome = tracker.onAcked(offset);
        gaps.close();
        if (outcome.duplicateAck() || outcome.offerMissing()) {
            LOG.log(Level.DEBUG, "Bad ack: offset={0}, offerMissing={1}, duplicateAck={2}", offset,
                    outcome.offerMissing(), outcome.duplicateAck());
        }
        return !outcome.duplicateAck();
    }

    /** The offset and sparse-ack metadata to commit, if they changed since the last submit. */
    Optional<OffsetAndMetadata> commitIfChanged() {
        long offset = tracker.offset();
        String metadata = tracker.metadata();
        if (offset == submittedOffset && metadata.equals(submittedMetadata)) {
            return Optional.empty();
        }
        submittedOffset = offset;
        submittedMetadata = metadata;
        lastSubmitted = offset;
        return Optional.of(new OffsetAndMetadata(offset, metadata));
    }

    /** Makes the next {@link #commitIfChanged()} resubmit (after a failed commit). */
    void commitFailed() {
        submittedOffset = -1;
    }

    /** The offset the next commit will carry; unlike {@link #position()} it does not mark it submitted. */
    long committableOffset() {
        return tracker.offset();
    }

    /** The current position, changed or not, without marking it submitted. */
    OffsetAndMetadata current() {
        return new OffsetAndMetadata(tracker.offset(), tracker.metadata());
    }

    /** The current position to commit, changed or not (for the final commit on revoke or shutdown). */
    OffsetAndMetadata position() {
        submittedOffset = tracker.offset();
        submittedMetadata = tracker.metadata();
        lastSubmitted = submittedOffset;
        return new OffsetAndMetadata(submittedOffset, submittedMetadata);
    }

    /** How long to wait for acks before the partition goes; while a dead letter is being written, at least a slice. */
    Duration waitForAcks(Instant now) {
        Duration wait = tracker.shouldWaitForAck(now);
        return lettering.none() || wait.compareTo(LETTER_WAIT) >= 0 ? wait : LETTER_WAIT;
    }

    /** Under the lock: fetching of this partition was stopped ({@code true}) or goes on. */
    void paused(boolean paused) {
        this.paused = paused;
    }

    /** Under the lock: the partition's end as the consumer knows it now. */
    void endOffset(long endOffset) {
        this.endOffset = endOffset;
    }

    /** When the message out the longest was first handed out, or null when none is out. */
    Instant oldestOut() {
        Instant oldest = null;
        for (Out o : offered.values()) {
            if (oldest == null || o.since.isBefore(oldest)) {
                oldest = o.since;
            }
        }
        return oldest;
    }

    /**
     * A copy of this partition's state at {@code now}, its messages as far as {@code rows} allow. A retry taken from
     * the tracker and not handed out yet shows as {@code waiting}, with the delivery its client last got.
     */
    InFlight.Partition view(Instant now, InFlight.Rows rows) {
        long oldestOffset = -1;
        Instant oldest = null;
        int redeliveries = 0;
        List<InFlight.Message> messages = new ArrayList<>();
        for (Offer offer : tracker.offers()) {
            Out out = offered.get(offer.offset());
            if (out == null) {
                continue;
            }
            boolean waiting = dueRetry != null && dueRetry.offset() == offer.offset();
            // retries counted so far; an undone first delivery has -1 until it goes out again
            int delivered = Math.max(0, waiting ? offer.retryNo() - 1 : offer.retryNo());
            redeliveries += delivered;
            if (oldest == null || out.since.isBefore(oldest)) {
                oldest = out.since;
                oldestOffset = offer.offset();
            }
            if (rows.take()) {
                messages.add(new InFlight.Message(tp.partition(), offer.offset(), delivered + 1,
                        Duration.between(out.since, now).toMillis(),
                        waiting ? 0 : Duration.between(now, offer.deadline()).toMillis(), waiting ? "waiting" : "out",
                        rows.showMessages() ? out.record.key() : null,
                        rows.showMessages() ? out.record.value() : null));
            }
        }
        lettering.view(now, rows, messages);
        return new InFlight.Partition(tp.partition(), true, lastSubmitted, tracker.offset(), tracker.sparseAcks(),
                gaps.nextExpected(), endOffset, fetched.size(), paused, revoking, tracker.offeredCount(), redeliveries,
                oldestOffset, oldest == null ? -1 : Duration.between(oldest, now).toMillis(),
                List.copyOf(messages));
    }

    /** A message out with a client: its record and when it was first handed out (redeliveries keep that time). */
    record Out(ConsumerRecord<byte[], byte[]> record, Instant since) {
    }

    static ConsumedMessage message(TopicPartition tp, ConsumerRecord<byte[], byte[]> r, int attempt) {
        return new ConsumedMessage(tp.topic(), tp.partition(), r.offset(), r.key(), r.value(),
                Arrays.asList(r.headers().toArray()), attempt);
    }

    private ConsumedMessage message(ConsumerRecord<byte[], byte[]> r, int attempt) {
        return message(tp, r, attempt);
    }
}
