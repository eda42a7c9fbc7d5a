package io.kafkapixy.consumer;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import io.kafkapixy.offset.Offer;
import io.kafkapixy.offset.OffsetTracker;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * One partition assigned to this instance for a group (reference §4.10): the records fetched but not yet offered,
 * the offers awaiting acks, and the {@link OffsetTracker} that decides what is committed.
 *
 * <p>Not thread-safe: guarded by the owning {@code GroupConsumer}'s lock. Time is passed in.
 */
final class PartitionState {

    private static final System.Logger LOG = System.getLogger(PartitionState.class.getName());

    final TopicPartition tp;
    private final OffsetTracker tracker;
    private final ArrayDeque<ConsumerRecord<byte[], byte[]>> fetched = new ArrayDeque<>();
    private final Map<Long, ConsumerRecord<byte[], byte[]>> offered = new HashMap<>();
    private long submittedOffset;
    private String submittedMetadata;
    private boolean revoking;

    /** {@code committed} is what Kafka has for the partition now (so an unchanged state is not committed again). */
    PartitionState(TopicPartition tp, OffsetTracker tracker, OffsetAndMetadata committed) {
        this.tp = tp;
        this.tracker = tracker;
        this.submittedOffset = committed == null ? -1 : committed.offset();
        this.submittedMetadata = committed == null ? "" : committed.metadata();
    }

    void addFetched(ConsumerRecord<byte[], byte[]> record) {
        fetched.addLast(record);
    }

    int fetchedCount() {
        return fetched.size();
    }

    int offeredCount() {
        return tracker.offeredCount();
    }

    /** Fetching stops while the buffer is full or more than {@code maxPending} offers await acks (§4.10). */
    boolean shouldPauseFetching(int bufferLimit, int maxPending) {
        return fetched.size() >= bufferLimit || tracker.offeredCount() > maxPending;
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
        while (true) {
            Optional<Offer> retry = tracker.nextRetry(now);
            if (retry.isEmpty()) {
                break;
            }
            long offset = retry.get().offset();
            ConsumerRecord<byte[], byte[]> record = offered.get(offset);
            if (maxRetries >= 0 && retry.get().retryNo() > maxRetries) {
                LOG.log(Level.WARNING, "Too many retries: retryNo={0}, offset={1}, partition={2}, msg={3}",
                        retry.get().retryNo(), offset, tp, record == null || record.value() == null ? ""
                                : Base64.getEncoder().encodeToString(record.value()));
                ack(offset);
                continue;
            }
            if (record != null) {
                return message(record);
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
            offered.put(offset, record);
            return message(record);
        }
        return null;
    }

    /** Applies an ack; false when it changed nothing (a duplicate, or an offset already committed). */
    boolean ack(long offset) {
        offered.remove(offset);
        var outcome = tracker.onAcked(offset);
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
        return Optional.of(new OffsetAndMetadata(offset, metadata));
    }

    /** Makes the next {@link #commitIfChanged()} resubmit (after a failed commit). */
    void commitFailed() {
        submittedOffset = -1;
    }

    /** The current position to commit, changed or not (for the final commit on revoke or shutdown). */
    OffsetAndMetadata position() {
        submittedOffset = tracker.offset();
        submittedMetadata = tracker.metadata();
        return new OffsetAndMetadata(submittedOffset, submittedMetadata);
    }

    java.time.Duration waitForAcks(Instant now) {
        return tracker.shouldWaitForAck(now);
    }

    private ConsumedMessage message(ConsumerRecord<byte[], byte[]> r) {
        return new ConsumedMessage(tp.topic(), tp.partition(), r.offset(), r.key(), r.value(),
                Arrays.asList(r.headers().toArray()));
    }
}
