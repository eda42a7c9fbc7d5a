package io.kafkapixy.logging;

import java.io.OutputStream;
import java.io.UnsupportedEncodingException;
import java.nio.charset.StandardCharsets;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.StreamHandler;

/**
 * The handler of a stream sink: one formatted record per write, flushed at once, in UTF-8 whatever the platform's
 * default charset.
 *
 * <p>Flushing every record keeps lines from sitting in a buffer while the process is killed, and lets a log
 * collector see them as they happen. {@link StreamHandler} already serialises writers, so any number of (virtual)
 * threads may log; the overrides add no locking of their own. {@link #close()} only flushes: the stream is stderr,
 * which must outlive this handler (a later {@link LogSetup#apply} or the JDK's shutdown reset closes handlers).
 */
final class LineHandler extends StreamHandler {

    LineHandler(OutputStream out, Formatter formatter, Level level) {
        super(out, formatter);
        setLevel(level);
        try {
            setEncoding(StandardCharsets.UTF_8.name());
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException("every JVM supports UTF-8", e);
        }
    }

    @Override
    public void publish(LogRecord record) {
        super.publish(record);
        flush();
    }

    @Override
    public void close() {
        flush();
    }
}
