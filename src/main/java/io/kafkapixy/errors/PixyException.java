package io.kafkapixy.errors;

/**
 * The one exception the domain throws towards the transports. The message is the client-facing error text
 * (the original's, where it has one); the kind decides the status code.
 */
public final class PixyException extends RuntimeException {

    public static final String SHUTTING_DOWN_TEXT = "service is shutting down";

    private final ErrorKind kind;

    public PixyException(ErrorKind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    public PixyException(ErrorKind kind, String message, Throwable cause) {
        super(message, cause, false, false);
        this.kind = kind;
    }

    public ErrorKind kind() {
        return kind;
    }

    public static PixyException badRequest(String message) {
        return new PixyException(ErrorKind.BAD_REQUEST, message);
    }

    /** A known client that may not do what it asked (the same text for every refusal: it names no resource). */
    public static PixyException forbidden() {
        return new PixyException(ErrorKind.FORBIDDEN, "Forbidden");
    }

    /** sarama's text for {@code MESSAGE_TOO_LARGE}, which the original sends to clients. */
    public static PixyException messageTooLarge() {
        return new PixyException(ErrorKind.MESSAGE_TOO_LARGE,
                "kafka server: Message was too large, server rejected it to avoid allocation error.");
    }

    public static PixyException disabled() {
        return new PixyException(ErrorKind.DISABLED, "service is disabled by configuration");
    }

    public static PixyException longPollTimeout() {
        return new PixyException(ErrorKind.LONG_POLL_TIMEOUT, "long polling timeout");
    }

    /** An ack for a partition this instance never handed out a message of (the original's text). */
    public static PixyException acksChannelMissing(String group, String topic, int partition) {
        return new PixyException(ErrorKind.ACK_FAILED,
                "acks channel missing for {" + group + " " + topic + " " + partition + "}");
    }

    /** An ack for a message this instance does not hold (any more). */
    public static PixyException ackTimeout() {
        return new PixyException(ErrorKind.ACK_FAILED, "ack timeout");
    }

    public static PixyException tooManyRequests() {
        return new PixyException(ErrorKind.TOO_MANY_REQUESTS, "Too many requests. Consider increasing "
                + "`consumer.channel_buffer_size` (https://github.com/mailgun/kafka-pixy/blob/master/default.yaml#L43)");
    }

    /** A stream's client granted more credits than it may have unspent at once. */
    public static PixyException tooManyCredits(long limit) {
        return new PixyException(ErrorKind.TOO_MANY_REQUESTS, "Too many credits: at most " + limit
                + " may be unspent at once (limits.max_credits_per_stream)");
    }

    /** Every stream this instance may hold at once is open. */
    public static PixyException tooManyStreams(int limit) {
        return new PixyException(ErrorKind.TOO_MANY_REQUESTS, "Too many streams: at most " + limit
                + " may be open at once (limits.max_streams)");
    }

    /** A share group on brokers that do not serve share groups; {@code brokerReason} is their refusal. */
    public static PixyException shareGroupsUnavailable(String brokerReason) {
        return new PixyException(ErrorKind.SHARE_GROUPS_UNAVAILABLE, "share groups are not available on this "
                + "cluster's brokers (they need Kafka 4.1 or later with the share.version feature on): "
                + brokerReason);
    }

    public static PixyException shuttingDown() {
        return new PixyException(ErrorKind.SHUTTING_DOWN, SHUTTING_DOWN_TEXT);
    }
}
