package io.kafkapixy.server.http;

import java.util.concurrent.atomic.AtomicBoolean;

import io.helidon.common.buffers.BufferData;
import io.helidon.common.buffers.DataWriter;

/**
 * The answers of Helidon's HTTP/1.1 connection as an HTTP/1.0 client reads them: the status line of the answer to an
 * HTTP/1.0 request says {@code HTTP/1.0}, as the original's Go server answers (an HTTP/1.1 status line is also legal,
 * but some HTTP/1.0 clients take it as a promise of HTTP/1.1 features). Helidon writes every answer's status line and
 * headers at the start of one write; {@link #expectAnswer()} marks that the next write starts the answer to an
 * HTTP/1.0 request.
 */
final class Http10Answers implements DataWriter {

    private static final byte[] HTTP_1_1 = {'H', 'T', 'T', 'P', '/', '1', '.', '1', ' '};
    private static final int MINOR_VERSION = 7;

    private final DataWriter socket;
    private final AtomicBoolean answerNext = new AtomicBoolean();

    Http10Answers(DataWriter socket) {
        this.socket = socket;
    }

    /** The next write starts the answer to an HTTP/1.0 request. */
    void expectAnswer() {
        answerNext.set(true);
    }

    /** Whether the answer to the HTTP/1.0 request expected last has started. */
    boolean answerStarted() {
        return !answerNext.get();
    }

    @Override
    public void write(BufferData... buffers) {
        if (buffers.length > 0) {
            buffers[0] = versioned(buffers[0]);
        }
        socket.write(buffers);
    }

    @Override
    public void write(BufferData buffer) {
        socket.write(versioned(buffer));
    }

    @Override
    public void writeNow(BufferData... buffers) {
        if (buffers.length > 0) {
            buffers[0] = versioned(buffers[0]);
        }
        socket.writeNow(buffers);
    }

    @Override
    public void writeNow(BufferData buffer) {
        socket.writeNow(versioned(buffer));
    }

    @Override
    public void flush() {
        socket.flush();
    }

    @Override
    public void close() {
        socket.close();
    }

    private BufferData versioned(BufferData buffer) {
        if (!answerNext.get() || !startsWithHttp11(buffer) || !answerNext.compareAndSet(true, false)) {
            return buffer;
        }
        byte[] bytes = buffer.readBytes();
        bytes[MINOR_VERSION] = '0';
        return BufferData.create(bytes);
    }

    private static boolean startsWithHttp11(BufferData buffer) {
        if (buffer.available() < HTTP_1_1.length) {
            return false;
        }
        for (int i = 0; i < HTTP_1_1.length; i++) {
            if (buffer.get(i) != HTTP_1_1[i]) {
                return false;
            }
        }
        return true;
    }
}
