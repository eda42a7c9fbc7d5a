package io.kafkapixy.offset;

/**
 * Committed offset metadata that is not a valid sparse-acks encoding.
 *
 * <p>{@link #getMessage()} is the original's range-level error text, exactly as its {@code TestRangeDecodeError}
 * lists it: {@code bad range: {10000 10000}}, {@code bad `from` boundary: bad sequence: 0123456789012},
 * {@code bad `to` boundary: bad char: @}, ... The original additionally wraps that text as
 * {@code bad encoding: <whole string>: <text>} when decoding a whole metadata string; that form is
 * {@link #wrappedMessage()}, for logging the way the original does ({@code Bad sparse acks}).
 *
 * <p>Unchecked: metadata is external input, and every in-package caller turns a failure into "no sparse acks".
 */
public final class SparseAcksException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String encoded;

    SparseAcksException(String message, String encoded) {
        super(message);
        this.encoded = encoded;
    }

    /** The whole metadata string that failed to decode. */
    public String encoded() {
        return encoded;
    }

    /** The original's full error text: {@code bad encoding: <encoded>: <message>}. */
    public String wrappedMessage() {
        return "bad encoding: " + encoded + ": " + getMessage();
    }
}
