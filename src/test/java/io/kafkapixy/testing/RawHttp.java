package io.kafkapixy.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Sends a hand-written HTTP/1.1 request over a socket, for requests a well-behaved client library refuses to
 * send (no {@code Content-Length}, a lying one). Returns the raw response with the connection closed.
 */
public final class RawHttp {

    private RawHttp() {
    }

    public static String exchange(int port, String request) {
        return exchange(port, request.getBytes(StandardCharsets.UTF_8));
    }

    /** The same with any bytes, e.g. ones that are not UTF-8. */
    public static String exchange(int port, byte[] request) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(request);
            socket.getOutputStream().flush();
            socket.shutdownOutput();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Sends the bytes and keeps the connection open, as a client waiting for its answer does (no half-close that a
     * server could take as the end), and reads one complete answer: status line, headers and a body of its
     * Content-Length. Fails if no complete answer arrives within {@code timeout}.
     */
    public static String answer(int port, byte[] request, java.time.Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.getOutputStream().write(request);
            socket.getOutputStream().flush();
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            while (true) {
                String text = got.toString(StandardCharsets.UTF_8);
                int headersEnd = text.indexOf("\r\n\r\n");
                if (headersEnd >= 0) {
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)\r\ncontent-length: *(\\d+)")
                            .matcher(text.substring(0, headersEnd));
                    int length = m.find() ? Integer.parseInt(m.group(1)) : 0;
                    if (got.size() - (headersEnd + 4) >= length) {
                        return text;
                    }
                }
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    throw new AssertionError("no complete answer within " + timeout + ", got: " + text);
                }
                socket.setSoTimeout((int) left);
                int n;
                try {
                    n = socket.getInputStream().read(buffer);
                } catch (java.net.SocketTimeoutException e) {
                    throw new AssertionError("no complete answer within " + timeout + ", got: " + text);
                }
                if (n < 0) {
                    throw new AssertionError("connection closed before a complete answer, got: " + text);
                }
                got.write(buffer, 0, n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The status code of a raw response. */
    public static int status(String response) {
        return Integer.parseInt(response.substring(9, 12));
    }

    /** The body of a raw, non-chunked response. */
    public static String body(String response) {
        int i = response.indexOf("\r\n\r\n");
        return i < 0 ? "" : response.substring(i + 4);
    }
}
