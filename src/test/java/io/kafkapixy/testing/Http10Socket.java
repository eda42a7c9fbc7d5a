package io.kafkapixy.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A connection as an HTTP/1.0 client holds it: requests written as given, answers read the only ways HTTP/1.0 knows,
 * by their {@code Content-Length} or up to the server closing the connection. The client never half-closes, so a
 * server that waits for more bytes is seen waiting.
 */
public final class Http10Socket implements AutoCloseable {

    private static final Pattern CONTENT_LENGTH = Pattern.compile("(?i)\r\ncontent-length: *(\\d+)");

    private final Socket socket;
    private final InputStream in;
    private final ByteArrayOutputStream got = new ByteArrayOutputStream();

    private Http10Socket(int port) throws IOException {
        this.socket = new Socket("127.0.0.1", port);
        this.in = socket.getInputStream();
    }

    public static Http10Socket open(int port) {
        try {
            return new Http10Socket(port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One request and the answer to it, read by its Content-Length (an answer without one fails). */
    public String exchange(String request, Duration timeout) {
        send(request);
        return answer(timeout);
    }

    /** Writes bytes of a request, which may be a part of it. */
    public void send(String bytes) {
        try {
            socket.getOutputStream().write(bytes.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The next complete answer, read by its Content-Length. */
    public String answer(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String text = got.toString(StandardCharsets.ISO_8859_1);
            int headersEnd = text.indexOf("\r\n\r\n");
            if (headersEnd >= 0) {
                Matcher m = CONTENT_LENGTH.matcher(text.substring(0, headersEnd));
                if (!m.find()) {
                    throw new AssertionError("an answer without Content-Length: " + text);
                }
                int end = headersEnd + 4 + Integer.parseInt(m.group(1));
                if (got.size() >= end) {
                    byte[] all = got.toByteArray();
                    got.reset();
                    got.write(all, end, all.length - end);
                    return new String(all, 0, end, StandardCharsets.ISO_8859_1);
                }
            }
            if (!readMore(deadline)) {
                throw new AssertionError("connection closed before a complete answer, got: " + text);
            }
        }
    }

    /** Whether the server closed the connection within {@code timeout}, with no bytes after the last answer. */
    public boolean closedByServer(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (readMore(deadline)) {
                if (got.size() > 0) {
                    throw new AssertionError("bytes after the answer: " + got.toString(StandardCharsets.ISO_8859_1));
                }
            }
            return true;
        } catch (AssertionError e) {
            if (e.getCause() instanceof SocketTimeoutException) {
                return false;
            }
            throw e;
        }
    }

    private boolean readMore(long deadline) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        try {
            if (left <= 0) {
                throw new AssertionError("timed out", new SocketTimeoutException());
            }
            socket.setSoTimeout((int) left);
            byte[] buffer = new byte[8192];
            int n = in.read(buffer);
            if (n < 0) {
                return false;
            }
            got.write(buffer, 0, n);
            return true;
        } catch (SocketTimeoutException e) {
            throw new AssertionError("timed out, got: " + got.toString(StandardCharsets.ISO_8859_1), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
