package io.kafkapixy.server.http;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.helidon.common.buffers.BufferData;
import io.helidon.common.concurrency.limits.Limit;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.spi.ServerConnection;
import io.helidon.webserver.spi.ServerConnectionSelector;

/**
 * Answers, on the REST socket, what neither HTTP/1.1, HTTP/1.0 nor HTTP/2 will take: a first line that is not an HTTP
 * request line ({@code GARBAGE}), binary bytes (a TLS handshake on a plaintext port). Helidon's own selectors leave
 * these unanswered: binary bytes closed the connection silently, and a short line that is not HTTP waited for the 24
 * bytes of an HTTP/2 preface, until the client gave up. Here they get 400 with a JSON error, and the connection is
 * closed.
 *
 * <p>Helidon asks this selector first; it claims only what is certainly not a request for the others, and leaves
 * everything else (a valid or still incomplete request line, the HTTP/2 preface) to them.
 */
public final class NotHttpRequests implements ServerConnectionSelector {

    /** How much of a connection's first bytes is looked at for the end of its first line. */
    static final int LOOK_AT = 16 * 1024;
    private static final String HTTP2_PREFACE_LINE = "PRI * HTTP/2.0";

    /** What to answer: a status line and the error text. */
    record Answer(int status, String reason, String error) {
    }

    /** What a connection's first line is, as far as it has arrived. */
    enum FirstLine { HTTP_1_1, HTTP_1_0, HTTP_2_PREFACE, NOT_HTTP, UNKNOWN }

    /** The first line of a connection that starts with these bytes; {@code UNKNOWN} until it has ended. */
    static FirstLine firstLine(byte[] start, int length) {
        int n = Math.min(length, LOOK_AT);
        for (int i = 0; i < n; i++) {
            int b = start[i] & 0xFF;
            if (b == '\n') {
                int end = i > 0 && start[i - 1] == '\r' ? i - 1 : i;
                String line = new String(start, 0, end, StandardCharsets.ISO_8859_1);
                if (line.endsWith(" HTTP/1.1")) {
                    return FirstLine.HTTP_1_1;
                }
                if (line.equals(HTTP2_PREFACE_LINE)) {
                    return FirstLine.HTTP_2_PREFACE;
                }
                return line.endsWith(" HTTP/1.0") ? FirstLine.HTTP_1_0 : FirstLine.NOT_HTTP;
            }
            if (b < 0x20 && b != '\r' && b != '\t' || b == 0x7F) {
                return FirstLine.NOT_HTTP;
            }
        }
        return FirstLine.UNKNOWN;
    }

    /** The answer for a connection that starts with these bytes, or empty when they may be a request. */
    static Optional<Answer> classify(byte[] start, int length) {
        return firstLine(start, length) == FirstLine.NOT_HTTP ? Optional.of(malformed()) : Optional.empty();
    }

    private static Answer malformed() {
        return new Answer(400, "Bad Request", "malformed HTTP request: not an HTTP/1.1 request line");
    }

    @Override
    public int bytesToIdentifyConnection() {
        return 0; // looks at whatever has arrived; Helidon keeps asking while the answer is "unknown"
    }

    @Override
    public Support supports(BufferData data) {
        byte[] start = new byte[Math.min(data.available(), LOOK_AT)];
        data.read(start);
        return classify(start, start.length).isPresent() ? Support.SUPPORTED : Support.UNKNOWN;
    }

    @Override
    public Set<String> supportedApplicationProtocols() {
        return Set.of();
    }

    @Override
    public ServerConnection connection(ConnectionContext ctx) {
        BufferData data = ctx.dataReader().getBuffer(ctx.dataReader().available());
        byte[] start = new byte[Math.min(data.available(), LOOK_AT)];
        data.read(start);
        Answer answer = classify(start, start.length).orElseGet(NotHttpRequests::malformed);
        return new Refusal(ctx, answer);
    }

    /** Writes the answer and ends; Helidon then closes the socket. */
    private record Refusal(ConnectionContext ctx, Answer answer) implements ServerConnection {

        @Override
        public void handle(Limit limit) {
            byte[] body = Json.bytes(Map.of("error", answer.error()));
            String head = "HTTP/1.1 " + answer.status() + " " + answer.reason() + "\r\n"
                          + "Content-Type: application/json\r\n"
                          + "Content-Length: " + body.length + "\r\n"
                          + "Connection: close\r\n\r\n";
            BufferData out = BufferData.growing(head.length() + body.length);
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            ctx.dataWriter().writeNow(out);
        }

        @Override
        public Duration idleTime() {
            return Duration.ZERO;
        }

        @Override
        public void close(boolean interrupt) {
            // nothing held: handle() writes once and returns
        }
    }
}
