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
