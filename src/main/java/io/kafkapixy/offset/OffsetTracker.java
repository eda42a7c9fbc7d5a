package io.kafkapixy.offset;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Per-partition bookkeeping of offered and acknowledged messages, a port of the original's {@code offsettrk.T} with
 * identical results on every input, including malformed metadata.
 *
 * <p>State: the committed {@link #offset()} (lowest offset not acked yet), the acked ranges above it (sorted,
 * disjoint, non-adjacent when built by this class) whose encoding is {@link #metadata()}, and the outstanding
 * {@link #offers()} sorted by offset. Time is always passed in; nothing here reads a clock, logs, or blocks.
 *
 * <p>Not thread-safe: owned by one partition consumer.
 */
public final class OffsetTracker {

    private final Duration ackTimeout;
    private final SparseAcksException metadataError;

    /** The committed offset and the acked ranges above it. */
    private final AckedRanges acked;
    /** Committed metadata; {@code null} means "re-encode from the ranges on demand". */
    private String metadata;
    private final ArrayList<Offer> offers = new ArrayList<>();
    /**
     * Offers whose deadline {@link #reschedule} moved, until they are retried or gone: while there are any, deadlines
     * are not in offset order, and {@link #nextRetry} looks at every offer.
     */
    private final HashSet<Long> rescheduled = new HashSet<>();

    /**
     * Starts from a committed {@code {offset, metadata}}. Valid metadata is kept verbatim (not re-encoded) until
     * the state changes, as the original does. Metadata that does not decode is discarded: no acked ranges,
     * metadata {@code ""}, and {@link #metadataError()} tells the caller to log {@code Bad sparse acks}.
     *
     * @param ackTimeout how long an offered message may stay unacknowledged before it is due for a retry
     */
    public OffsetTracker(long committedOffset, String metadata, Duration ackTimeout) {
        this.ackTimeout = Objects.requireNonNull(ackTimeout, "ackTimeout");
        long[] decoded;
        SparseAcksException error = null;
        try {
            decoded = SparseAcks.decodePairs(committedOffset, metadata);
            this.metadata = metadata == null ? "" : metadata;
        } catch (SparseAcksException e) {
            decoded = new long[0];
            this.metadata = "";
            error = e;
        }
        this.metadataError = error;
        this.acked = new AckedRanges(committedOffset, decoded);
    }

    /** Whether the metadata given to the constructor failed to decode (and was discarded). */
    public boolean badMetadata() {
        return metadataError != null;
    }

    /** Why the constructor's metadata was discarded, if it was. */
    public Optional<SparseAcksException> metadataError() {
        return Optional.ofNullable(metadataError);
    }

    /** The offset to commit: every offset below it is acked (or was skipped by {@link #adjust(long)}). */
    public long offset() {
        return acked.offset();
    }

    /** The metadata to commit with {@link #offset()}: the sparse-acks encoding of {@link #ackedRanges()}. */
    public String metadata() {
        String m = metadata;
        if (m == null) {
            m = acked.encode();
            metadata = m;
        }
        return m;
    }

    /** The human form of the current state, as the {@code sparse_acks} field and the original's logs show it. */
    public String sparseAcks() {
        return acked.human();
    }

    /** A snapshot of the acked ranges above {@link #offset()}, ascending. */
    public List<AckRange> ackedRanges() {
        return acked.snapshot();
    }

    /** A snapshot of the outstanding offers, ascending by offset. */
    public List<Offer> offers() {
        return List.copyOf(offers);
    }

    /** The number of outstanding offers. */
    public int offeredCount() {
        return offers.size();
    }

    /**
     * Records an acknowledgement (the original's {@code OnAcked}) and removes the offer for {@code ackedOffset}.
     * An offset below {@link #offset()} or inside an acked range changes nothing. An offset that was never offered
     * is still recorded, so that message will be skipped when fetched.
     */
    public AckOutcome onAcked(long ackedOffset) {
        boolean offerRemoved = removeOffer(ackedOffset);
        boolean updated = acked.add(ackedOffset);
        if (updated) {
            metadata = null;
        }
        return AckOutcome.of(!offerRemoved, !updated);
    }

    /** Whether {@code o} is acked: below {@link #offset()} or inside an acked range. */
    public boolean isAcked(long o) {
        return acked.contains(o);
    }

    /**
     * The original's second {@code IsAcked} result: {@link #offset()} if {@code o} is below it; the end of the
     * range holding {@code o}; the end of the range starting at {@code o + 1}; otherwise {@code o + 1}.
     */
    public long nextNotAcked(long o) {
        return acked.nextNotAcked(o);
    }

    /** {@link #isAcked(long)} and {@link #nextNotAcked(long)} together, the original's {@code IsAcked}. */
    public AckState ackState(long o) {
        return new AckState(isAcked(o), nextNotAcked(o));
    }

    /**
     * Records that the message at {@code o} was handed to a consumer at {@code now}; it becomes due for a retry at
     * {@code now + ackTimeout}. Ignored if {@code o} is acked or already offered (a retry's offer was already
     * refreshed by {@link #nextRetry(Instant)}).
     *
     * @return the number of outstanding offers
     */
    public int onOffered(long o, Instant now) {
        int count = offers.size();
        if (isAcked(o)) {
            return count;
        }
        // Messages are normally offered in offset order: append without searching.
        if (count == 0 || o > offers.get(count - 1).offset()) {
            offers.add(new Offer(o, 0, now.plus(ackTimeout)));
            return count + 1;
        }
        int i = lowerBound(o);
        if (offers.get(i).offset() == o) {
            return count;
        }
        offers.add(i, new Offer(o, 0, now.plus(ackTimeout)));
        return count + 1;
    }

    /**
     * The next offer due for a retry: the lowest-offset offer whose deadline is before {@code now}, which gets
     * {@code retryNo + 1} and a new deadline {@code now + ackTimeout} and is returned as updated.
     *
     * <p>As in the original, the scan stops at the first offer that has never been retried and has not expired:
     * offers made in offset order expire in offset order, so nothing after it can be due. Offers made out of order
     * can therefore be found late.
     */
    public Optional<Offer> nextRetry(Instant now) {
        for (int i = 0, n = offers.size(); i < n; i++) {
            Offer o = offers.get(i);
            if (o.deadline().isBefore(now)) {
                Offer retried = new Offer(o.offset(), o.retryNo() + 1, now.plus(ackTimeout));
                offers.set(i, retried);
                // an undone first delivery comes back as retryNo 0 with a deadline out of order: it stays in the set
                if (retried.retryNo() > 0 && !rescheduled.isEmpty()) {
                    rescheduled.remove(o.offset());
                }
                return Optional.of(retried);
            }
            if (o.retryNo() == 0 && rescheduled.isEmpty()) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /**
     * Makes the offer of {@code o} due for a retry at {@code due} instead of its deadline (a client gave the message
     * back: offer it again then). Only when its {@code retryNo} is {@code retryNo}, so that a client that held an
     * earlier delivery does not move the deadline of a later one; {@code retryNo} -1 matches any.
     *
     * @return whether the offer was there and moved
     */
    public boolean reschedule(long o, int retryNo, Instant due) {
        return reschedule(o, retryNo, due, false);
    }

    /**
     * As {@link #reschedule(long, int, Instant)}; with {@code undo} the delivery never reached a client, so it does
     * not count: the retry due at {@code due} gets the {@code retryNo} this offer has now.
     */
    public boolean reschedule(long o, int retryNo, Instant due, boolean undo) {
        int i = lowerBound(o);
        if (i >= offers.size() || offers.get(i).offset() != o) {
            return false;
        }
        Offer offer = offers.get(i);
        if (retryNo >= 0 && offer.retryNo() != retryNo) {
            return false;
        }
        offers.set(i, new Offer(o, undo ? offer.retryNo() - 1 : offer.retryNo(), due));
        rescheduled.add(o);
        return true;
    }

    /**
     * Takes the offer of {@code o} out: it is neither retried nor waited for until {@link #putBack} returns it (a
     * message on its way to the dead-letter topic). The committed offset does not pass it meanwhile: only an ack
     * moves that.
     *
     * @return the offer, or null when {@code o} has none
     */
    public Offer withdraw(long o) {
        int i = lowerBound(o);
        if (i >= offers.size() || offers.get(i).offset() != o) {
            return null;
        }
        Offer offer = offers.remove(i);
        rescheduled.remove(o);
        return offer;
    }

    /** Returns an offer {@link #withdraw} took out (or one made from it); ignored when {@code o} is acked already. */
    public void putBack(Offer offer) {
        if (isAcked(offer.offset())) {
            return;
        }
        int i = lowerBound(offer.offset());
        if (i < offers.size() && offers.get(i).offset() == offer.offset()) {
            offers.set(i, offer);
        } else {
            offers.add(i, offer);
        }
        // its deadline is not in offset order with the others'
        rescheduled.add(offer.offset());
    }

    /**
     * Moves the committed offset up to where fetching really starts (the original's {@code Adjust}). If
     * {@code realStart < offset()} nothing changes. Otherwise offers below {@code realStart} are dropped, the offset
     * becomes {@code realStart} — or the end of the acked range containing it — and ranges below it are discarded.
     * The metadata is re-encoded even if nothing else changed, as in the original.
     *
     * @return the offsets of the dropped offers, ascending (the original logs {@code Offer dropped} for each)
     */
    public List<Long> adjust(long realStart) {
        if (realStart < acked.offset()) {
            return List.of();
        }
        List<Long> dropped = dropOffers(realStart);
        acked.advanceTo(realStart);
        metadata = null;
        return dropped;
    }

    /**
     * How long it is still worth waiting for acks at shutdown: the time until the latest deadline of the offers
     * that have not expired at {@code now}, {@link Duration#ZERO} if none (the original then logs
     * {@code Not acked: offset=<o>} for each remaining offer).
     */
    public Duration shouldWaitForAck(Instant now) {
        Instant latest = null;
        for (int i = 0, n = offers.size(); i < n; i++) {
            Instant deadline = offers.get(i).deadline();
            if (deadline.isAfter(now) && (latest == null || deadline.isAfter(latest))) {
                latest = deadline;
            }
        }
        return latest == null ? Duration.ZERO : Duration.between(now, latest);
    }

    /** Index of the first offer whose offset is ≥ {@code o} ({@code offers.size()} if none). */
    private int lowerBound(long o) {
        int lo = 0;
        int hi = offers.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (offers.get(mid).offset() < o) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private boolean removeOffer(long o) {
        int i = lowerBound(o);
        if (i >= offers.size() || offers.get(i).offset() != o) {
            return false;
        }
        offers.remove(i);
        rescheduled.remove(o);
        return true;
    }

    private List<Long> dropOffers(long realStart) {
        int drop = 0;
        while (drop < offers.size() && offers.get(drop).offset() < realStart) {
            drop++;
        }
        if (drop == 0) {
            return List.of();
        }
        List<Long> dropped = new ArrayList<>(drop);
        for (int i = 0; i < drop; i++) {
            dropped.add(offers.get(i).offset());
        }
        dropped.forEach(rescheduled::remove);
        offers.subList(0, drop).clear();
        return dropped;
    }

    @Override
    public String toString() {
        return acked.offset() + "(" + sparseAcks() + "), offered=" + offers.size();
    }
}
