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

    public static PixyException shuttingDown() {
        return new PixyException(ErrorKind.SHUTTING_DOWN, SHUTTING_DOWN_TEXT);
    }
}
