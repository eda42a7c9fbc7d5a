package io.kafkapixy.testing;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;

/**
 * An HTTP/2 client connection (h2c, prior knowledge) that writes exactly the frames a test asks for, so a test can
 * send what well-behaved client libraries never send: truncated gRPC messages, odd flags. Request headers are
 * HPACK literals without indexing (RFC 7541 section 6.2.2), their names either static-table indices, as grpc-java and
 * grpc-go send them, or literals, the way gRPC C-core sends {@code :path}; answers are decoded by Netty's HPACK
 * decoder. Not thread-safe: one test drives it.
 */
public final class RawHttp2 implements AutoCloseable {

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    static final int DATA = 0x0;
    static final int HEADERS = 0x1;
    static final int RST_STREAM = 0x3;
    static final int SETTINGS = 0x4;
    static final int PING = 0x6;
    static final int GOAWAY = 0x7;
    static final int WINDOW_UPDATE = 0x8;
    static final int CONTINUATION = 0x9;
    static final int END_STREAM = 0x1;
    static final int END_HEADERS = 0x4;
    static final int ACK = 0x1;

    /** How one stream ended, as the server sent it. */
    public record Answer(Map<String, String> headers, byte[] data, int resetCode, Map<String, String> trailers) {

        /** The gRPC status code: from the trailers, or from a trailers-only answer's headers. */
        public int grpcStatus() {
            String s = trailers.getOrDefault("grpc-status", headers.get("grpc-status"));
            if (s == null) {
                throw new AssertionError("no grpc-status in " + this);
            }
            return Integer.parseInt(s);
        }

        /** The status text, percent-decoded as the gRPC spec encodes it. */
        public String grpcMessage() {
            String m = trailers.getOrDefault("grpc-message", headers.get("grpc-message"));
            return m == null ? "" : URLDecoder.decode(m.replace("+", "%2B"), StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "Answer[headers=" + headers + ", data=" + data.length + " bytes, reset=" + resetCode
                   + ", trailers=" + trailers + "]";
        }
    }

    /** The server closed the connection (GOAWAY) while a stream was awaited. */
    public static final class GoAway extends AssertionError {
        GoAway(int code, String debug) {
            super("GOAWAY " + code + " " + debug);
        }
    }

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);
    private final Map<Integer, Stream> streams = new LinkedHashMap<>();
    private final String authority;
    private final boolean literalNames;
    private int nextStream = 1;
    /** Names in HPACK's static table (RFC 7541 Appendix A) that requests here use. */
    private static final Map<String, Integer> STATIC_NAMES = Map.of(":authority", 1, ":method", 2, ":path", 4,
            ":scheme", 6, "content-type", 31);

    private static final class Stream {
        final List<Map<String, String>> headerBlocks = new ArrayList<>();
        final java.io.ByteArrayOutputStream data = new java.io.ByteArrayOutputStream();
        int reset = -1;
        boolean ended;
    }

    private RawHttp2(Socket socket, String authority, boolean literalNames) throws IOException {
        this.socket = socket;
        this.literalNames = literalNames;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
        this.authority = authority;
    }

    /** Connects, sends the preface and empty SETTINGS; header names from the static table go as indices. */
    public static RawHttp2 connect(int port) {
        return connect(port, false);
    }

    /** Connects like {@link #connect(int)}, every header name sent as a literal string, as gRPC C-core does. */
    public static RawHttp2 connectWithLiteralNames(int port) {
        return connect(port, true);
    }

    private static RawHttp2 connect(int port, boolean literalNames) {
        try {
            Socket socket = new Socket("127.0.0.1", port);
            socket.setTcpNoDelay(true);
            RawHttp2 c = new RawHttp2(socket, "127.0.0.1:" + port, literalNames);
            c.out.write(PREFACE);
            c.frame(SETTINGS, 0, 0, new byte[0]);
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The next client stream id. */
    public int newStream() {
        int id = nextStream;
        nextStream += 2;
        return id;
    }

    /** The request headers of a gRPC call to {@code /service/method}, then any extra ones. */
    public List<String[]> grpcHeaders(String path, String... extra) {
        List<String[]> h = new ArrayList<>(List.of(
                new String[] {":method", "POST"}, new String[] {":scheme", "http"}, new String[] {":path", path},
                new String[] {":authority", authority}, new String[] {"content-type", "application/grpc"},
                new String[] {"te", "trailers"}));
        for (int i = 0; i + 1 < extra.length; i += 2) {
            h.add(new String[] {extra[i], extra[i + 1]});
        }
        return h;
    }

    public void headers(int stream, List<String[]> headers, boolean endStream) {
        java.io.ByteArrayOutputStream block = new java.io.ByteArrayOutputStream();
        for (String[] h : headers) {
            Integer index = literalNames ? null : STATIC_NAMES.get(h[0]);
            if (index == null) {
                block.write(0x00); // literal without indexing, new name
                literal(block, h[0].getBytes(StandardCharsets.ISO_8859_1));
            } else {
                integer(block, 0x00, 4, index); // literal without indexing, indexed name
            }
            literal(block, h[1].getBytes(StandardCharsets.ISO_8859_1));
        }
        frame(HEADERS, END_HEADERS | (endStream ? END_STREAM : 0), stream, block.toByteArray());
    }

    public void data(int stream, byte[] payload, boolean endStream) {
        frame(DATA, endStream ? END_STREAM : 0, stream, payload);
    }

    /** A whole unary gRPC call with this message (already framed by {@link #grpcMessage}). */
    public Answer call(String path, byte[] framedMessage, Duration timeout, String... extraHeaders) {
        int id = newStream();
        headers(id, grpcHeaders(path, extraHeaders), false);
        data(id, framedMessage, true);
        return await(id, timeout);
    }

    /** A gRPC length-prefixed message: flag byte (1 = compressed), 4-byte big-endian length, the bytes. */
    public static byte[] grpcMessage(boolean compressed, byte[] message) {
        return ByteBuffer.allocate(5 + message.length).put((byte) (compressed ? 1 : 0)).putInt(message.length)
                .put(message).array();
    }

    /**
     * Reads frames until this stream ends (END_STREAM or RST_STREAM), answering SETTINGS and PING as a client must.
     *
     * @throws AssertionError if it does not end within {@code timeout}
     * @throws GoAway         if the server closes the connection first
     */
    public Answer await(int stream, Duration timeout) {
        Stream s = streams.computeIfAbsent(stream, k -> new Stream());
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (!s.ended) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    throw new AssertionError("stream " + stream + " got no answer within " + timeout);
                }
                socket.setSoTimeout((int) left);
                try {
                    readFrame();
                } catch (SocketTimeoutException e) {
                    throw new AssertionError("stream " + stream + " got no answer within " + timeout);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> headers = s.headerBlocks.isEmpty() ? Map.of() : s.headerBlocks.getFirst();
        Map<String, String> trailers = s.headerBlocks.size() > 1 ? s.headerBlocks.getLast() : Map.of();
        return new Answer(headers, s.data.toByteArray(), s.reset, trailers);
    }

    private void readFrame() throws IOException {
        int length = in.readUnsignedShort() << 8 | in.readUnsignedByte();
        int type = in.readUnsignedByte();
        int flags = in.readUnsignedByte();
        int id = in.readInt() & 0x7FFFFFFF;
        byte[] payload = new byte[length];
        in.readFully(payload);
        switch (type) {
            case SETTINGS -> {
                if ((flags & ACK) == 0) {
                    frame(SETTINGS, ACK, 0, new byte[0]);
                }
            }
            case PING -> {
                if ((flags & ACK) == 0) {
                    frame(PING, ACK, 0, payload);
                }
            }
            case GOAWAY -> {
                ByteBuffer b = ByteBuffer.wrap(payload);
                b.getInt();
                int code = b.getInt();
                throw new GoAway(code, new String(payload, 8, payload.length - 8, StandardCharsets.UTF_8));
            }
            case HEADERS, CONTINUATION -> {
                if ((flags & END_HEADERS) == 0) {
                    throw new AssertionError("header blocks in CONTINUATION frames are not supported here");
                }
                Stream s = streams.computeIfAbsent(id, k -> new Stream());
                s.headerBlocks.add(decode(id, payload, flags));
                s.ended |= (flags & END_STREAM) != 0;
            }
            case DATA -> {
                Stream s = streams.computeIfAbsent(id, k -> new Stream());
                s.data.write(payload);
                s.ended |= (flags & END_STREAM) != 0;
                if (length > 0) {
                    frame(WINDOW_UPDATE, 0, 0, ByteBuffer.allocate(4).putInt(length).array());
                    if ((flags & END_STREAM) == 0) { // nothing may be sent on a closed stream (RFC 9113 section 5.1)
                        frame(WINDOW_UPDATE, 0, id, ByteBuffer.allocate(4).putInt(length).array());
                    }
                }
            }
            case RST_STREAM -> {
                Stream s = streams.computeIfAbsent(id, k -> new Stream());
                s.reset = ByteBuffer.wrap(payload).getInt();
                s.ended = true;
            }
            default -> {
                // WINDOW_UPDATE and anything else: nothing to do for the small answers of these tests
            }
        }
    }

    private Map<String, String> decode(int stream, byte[] payload, int flags) {
        int offset = 0;
        int length = payload.length;
        if ((flags & 0x8) != 0) { // PADDED
            int pad = payload[0] & 0xFF;
            offset = 1;
            length -= 1 + pad;
        }
        if ((flags & 0x20) != 0) { // PRIORITY
            offset += 5;
            length -= 5;
        }
        try {
            Http2Headers headers = decoder.decodeHeaders(stream, Unpooled.wrappedBuffer(payload, offset, length));
            Map<String, String> m = new LinkedHashMap<>();
            headers.forEach(e -> m.put(e.getKey().toString(), e.getValue().toString()));
            return m;
        } catch (Http2Exception e) {
            throw new AssertionError("the server's headers are not valid HPACK: " + e.getMessage(), e);
        }
    }

    /** Frames are never split here: every payload must fit the default SETTINGS_MAX_FRAME_SIZE. */
    private static final int MAX_FRAME = 16_384;

    private void frame(int type, int flags, int stream, byte[] payload) {
        if (payload.length > MAX_FRAME) {
            throw new IllegalArgumentException("a frame of " + payload.length + " bytes: split it, or send less");
        }
        try {
            ByteBuffer header = ByteBuffer.allocate(9);
            header.put((byte) (payload.length >>> 16)).put((byte) (payload.length >>> 8)).put((byte) payload.length)
                    .put((byte) type).put((byte) flags).putInt(stream);
            out.write(header.array());
            out.write(payload);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A string literal without Huffman coding: a 7-bit-prefix length, then the bytes. */
    private static void literal(java.io.ByteArrayOutputStream block, byte[] bytes) {
        integer(block, 0x00, 7, bytes.length);
        block.writeBytes(bytes);
    }

    /** An HPACK integer with an N-bit prefix (RFC 7541 section 5.1), the byte's high bits from {@code pattern}. */
    private static void integer(java.io.ByteArrayOutputStream block, int pattern, int prefixBits, int value) {
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            block.write(pattern | value);
            return;
        }
        block.write(pattern | max);
        int n = value - max;
        while (n >= 128) {
            block.write((n & 0x7F) | 0x80);
            n >>>= 7;
        }
        block.write(n);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
