package io.kafkapixy.server.grpc;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Opens one plaintext HTTP/2 connection to the gRPC server just started, sends the client preface and an empty
 * SETTINGS frame, waits for the server's first frame and closes: the first connection a process takes initializes
 * grpc-java's and Netty's HTTP/2 classes, which takes ~80 ms in a cold process and close to a second when the
 * processors are busy (a burst of REST polls arriving at once), all of it added to the first calls of the first
 * client. Done on a thread of its own at start, so no client pays for it. No stream is opened: no call is counted
 * or logged. TLS listeners are not warmed this way.
 */
final class ConnectionWarmUp {

    private static final System.Logger LOG = System.getLogger(ConnectionWarmUp.class.getName());
    private static final int TIMEOUT_MS = 10_000;
    /** The HTTP/2 client connection preface (RFC 9113, 3.4), then a SETTINGS frame with no settings (6.5). */
    private static final byte[] PREFACE = concat("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
            new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0});
    /** A frame header's length: the server's SETTINGS frame starts with one. */
    private static final int FRAME_HEADER_BYTES = 9;

    private ConnectionWarmUp() {
    }

    /** Warms the server listening on {@code host}:{@code port} from a new virtual thread. */
    static void start(String host, int port) {
        Thread.ofVirtual().name("grpc-warm-up").start(() -> run(address(host, port)));
    }

    /** The listener's own address, or loopback for a wildcard one. */
    static InetSocketAddress address(String host, int port) {
        try {
            InetAddress a = InetAddress.getByName(host);
            return new InetSocketAddress(a.isAnyLocalAddress() ? InetAddress.getLoopbackAddress() : a, port);
        } catch (IOException e) {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        }
    }

    /** True when the server answered the preface. */
    static boolean run(InetSocketAddress server) {
        try (Socket s = new Socket()) {
            s.connect(server, TIMEOUT_MS);
            s.setSoTimeout(TIMEOUT_MS);
            OutputStream out = s.getOutputStream();
            out.write(PREFACE);
            out.flush();
            return s.getInputStream().readNBytes(FRAME_HEADER_BYTES).length == FRAME_HEADER_BYTES;
        } catch (IOException e) {
            // only a cost saved: the first client pays it instead
            LOG.log(Level.DEBUG, "gRPC connection warm-up failed: " + e);
            return false;
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
