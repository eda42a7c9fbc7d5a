package io.kafkapixy.offset;

/**
 * What {@link OffsetTracker#onAcked(long)} did. Any outcome but {@link #ACKED} is an anomaly the original logs as
 * {@code Bad ack: offset=<o>, offerMissing=<bool>, duplicateAck=<bool>}.
 */
public enum AckOutcome {
    /** An outstanding offer was acknowledged and recorded. */
    ACKED(false, false),
    /** Recorded although the offset was not offered (the message will be skipped when fetched). */
    ACKED_NOT_OFFERED(true, false),
    /** The offset was already acked; state unchanged, but its offer (if any) was removed. */
    DUPLICATE(false, true),
    /** The offset was already acked and not offered; nothing changed. */
    DUPLICATE_NOT_OFFERED(true, true);

    private final boolean offerMissing;
    private final boolean duplicateAck;

    AckOutcome(boolean offerMissing, boolean duplicateAck) {
        this.offerMissing = offerMissing;
        this.duplicateAck = duplicateAck;
    }

    static AckOutcome of(boolean offerMissing, boolean duplicateAck) {
        if (duplicateAck) {
            return offerMissing ? DUPLICATE_NOT_OFFERED : DUPLICATE;
        }
        return offerMissing ? ACKED_NOT_OFFERED : ACKED;
    }

    /** No offer was outstanding for the offset. */
    public boolean offerMissing() {
        return offerMissing;
    }

    /** The offset was already acked (below the committed offset or inside an acked range). */
    public boolean duplicateAck() {
        return duplicateAck;
    }

    /** The committed {@code {offset, metadata}} changed and should be submitted. */
    public boolean changed() {
        return !duplicateAck;
    }

    /** The original would log {@code Bad ack} for this outcome. */
    public boolean isBad() {
        return offerMissing || duplicateAck;
    }
}
