package io.kafkapixy.server.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

import io.helidon.common.buffers.DataReader;
import io.helidon.http.HeaderNames;
import io.helidon.http.Http1HeadersParser;
import io.helidon.http.WritableHeaders;

/**
 * The bytes of an HTTP/1.0 connection as Helidon's HTTP/1.1 connection reads them: each request's line says
 * {@code HTTP/1.1}; a request that did not ask for {@code Connection: keep-alive} gets {@code Connection: close} (so
 * Helidon answers it with that header, and the connection ends when Helidon asks for the next request, as HTTP/1.0
 * does by default); {@code Expect} and {@code Transfer-Encoding} headers are dropped (see {@link #dropped}).
 * Everything else passes unchanged, byte for byte, so Helidon parses and validates it exactly as it would over
 * HTTP/1.1 and answers malformed input the same.
 *
 * <p>Requests are framed by Helidon's own header parser (run on a copy of each request's head) and the
 * {@code Content-Length} it reads; a head that does not parse ends the translation: it and the rest of the connection
 * pass unchanged, and Helidon answers the head with an error that closes the connection.
 */
final class Http10Requests implements Supplier<byte[]> {

    private static final byte[] CRLF = {'\r', '\n'};
    private static final String HTTP_1_0 = " HTTP/1.0";
    private static final byte[] CLOSE = "Connection: close\r\n".getBytes(StandardCharsets.US_ASCII);

    private final DataReader source;
    private final int maxHeadBytes;
    private final Runnable onHttp10Request;
    private final java.util.function.BooleanSupplier answerStarted;
    private long bodyLeft;
    private boolean passThrough;
    private boolean ended;
    /** The request handed on last is an HTTP/1.0 request (it is the one being answered: HTTP/1 answers in order). */
    private volatile boolean http10Request;
    /** The request handed on last closes the connection once its body was read. */
    private boolean closeAfter;

    /**
     * @param source          the connection's bytes as they arrive
     * @param maxHeadBytes    the longest request line plus headers taken apart here; a longer head passes unchanged
     * @param onHttp10Request called when an HTTP/1.0 request's head is handed on, before its answer is written
     * @param answerStarted   whether the answer to the HTTP/1.0 request handed on last has started
     */
    Http10Requests(DataReader source, int maxHeadBytes, Runnable onHttp10Request,
                   java.util.function.BooleanSupplier answerStarted) {
        this.source = source;
        this.maxHeadBytes = maxHeadBytes;
        this.onHttp10Request = onHttp10Request;
        this.answerStarted = answerStarted;
    }

    /** Whether the request being answered came as HTTP/1.0. */
    boolean answeringHttp10() {
        return http10Request;
    }

    /** The next bytes for Helidon's reader, blocking until some arrive; {@code null} once the connection ended. */
    @Override
    public byte[] get() {
        // after a request that closes the connection, nothing more is read once its body was, or once its answer
        // began (Helidon does not read the body of a request it answered without it, and would take what is left
        // of it for the next request)
        if (ended || closeAfter && !passThrough && (bodyLeft == 0 || answerStarted.getAsBoolean())) {
            ended = true;
            return null;
        }
        try {
            source.ensureAvailable();
        } catch (DataReader.InsufficientDataAvailableException e) {
            ended = true;
            return null;
        }
        if (passThrough) {
            return source.readBytes(source.available());
        }
        if (bodyLeft > 0) {
            int n = (int) Math.min(source.available(), bodyLeft);
            bodyLeft -= n;
            return source.readBytes(n);
        }
        return nextHead();
    }

    private byte[] nextHead() {
        ByteArrayOutputStream raw = new ByteArrayOutputStream(512);
        try {
            byte[] requestLine = readLine(raw);
            if (requestLine == null) {
                return passUnchanged(raw);
            }
            boolean http10 = endsWith(requestLine, HTTP_1_0);
            ByteArrayOutputStream head = new ByteArrayOutputStream(raw.size() + 64);
            head.writeBytes(requestLine);
            ByteArrayOutputStream headers = new ByteArrayOutputStream(512);
            while (true) {
                byte[] line = readLine(raw);
                if (line == null) {
                    return passUnchanged(raw);
                }
                headers.writeBytes(line);
                if (line.length == 2) {
                    break;
                }
                if (!http10 || !dropped(line)) {
                    head.writeBytes(line);
                }
            }
            WritableHeaders<?> parsed = Http1HeadersParser.readHeaders(
                    DataReader.create(oneChunk(headers.toByteArray())), maxHeadBytes, true);
            boolean unframed = !http10 && parsed.contains(HeaderNames.TRANSFER_ENCODING);
            closeAfter = http10 && !keepAliveAsked(parsed);
            if (closeAfter) {
                head.writeBytes(CLOSE);
            }
            head.writeBytes(CRLF);
            passThrough = unframed;
            http10Request = http10;
            bodyLeft = unframed ? 0 : parsed.contentLength().orElse(0);
            byte[] translated = head.toByteArray();
            if (http10) {
                asHttp11(translated, requestLine.length);
                onHttp10Request.run();
            }
            return translated;
        } catch (RuntimeException e) {
            // a head Helidon's parser refuses, or a broken line: Helidon reads it unchanged and answers it
            return passUnchanged(raw);
        }
    }

    /**
     * Reads one line, with its CRLF, and adds it to {@code raw}; {@code null} when no line ends within the head's
     * limit. The connection's end and a broken line end surface as the reader's exceptions.
     */
    private byte[] readLine(ByteArrayOutputStream raw) {
        int room = maxHeadBytes - raw.size();
        if (room <= 0) {
            return null;
        }
        int end = source.findNewLine(room);
        if (end >= room) {
            return null;
        }
        byte[] line = source.readBytes(end + 2);
        raw.writeBytes(line);
        return line;
    }

    /** What was taken of a head that is not translated goes on as it came, and so does the rest of the connection. */
    private byte[] passUnchanged(ByteArrayOutputStream raw) {
        passThrough = true;
        byte[] taken = raw.toByteArray();
        if (taken.length == 0) {
            http10Request = false;
            return source.readBytes(source.available());
        }
        int lineEnd = indexOfCrlf(taken);
        http10Request = lineEnd > 0 && endsWith(Arrays.copyOf(taken, lineEnd + 2), HTTP_1_0);
        if (http10Request) {
            // Helidon's HTTP/1.1 connection answers only a request line it reads as HTTP/1.1
            asHttp11(taken, lineEnd + 2);
            onHttp10Request.run();
        }
        return taken;
    }

    /** The request line ending at {@code lineLength} (with its CRLF) made to say HTTP/1.1. */
    private static void asHttp11(byte[] head, int lineLength) {
        head[lineLength - 3] = '1';
    }

    private static boolean endsWith(byte[] lineWithCrlf, String suffix) {
        int n = suffix.length();
        int at = lineWithCrlf.length - 2 - n;
        if (at < 0) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (lineWithCrlf[at + i] != suffix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * HTTP/1.0 has no interim answers ({@code Expect}) and no chunked bodies: like Go's server, a {@code
     * Transfer-Encoding} of an HTTP/1.0 request is ignored and its body is what {@code Content-Length} says.
     */
    private static boolean dropped(byte[] header) {
        return startsWithIgnoringCase(header, "Expect:") || startsWithIgnoringCase(header, "Transfer-Encoding:");
    }

    private static boolean startsWithIgnoringCase(byte[] line, String prefix) {
        return line.length >= prefix.length()
               && new String(line, 0, prefix.length(), StandardCharsets.ISO_8859_1).equalsIgnoreCase(prefix);
    }

    private static int indexOfCrlf(byte[] bytes) {
        for (int i = 0; i + 1 < bytes.length; i++) {
            if (bytes[i] == '\r' && bytes[i + 1] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private static boolean keepAliveAsked(WritableHeaders<?> headers) {
        for (String value : headers.all(HeaderNames.CONNECTION, List::of)) {
            for (String token : value.split(",")) {
                if (token.trim().toLowerCase(Locale.ROOT).equals("keep-alive")) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Supplier<byte[]> oneChunk(byte[] bytes) {
        boolean[] given = {false};
        return () -> {
            if (given[0]) {
                return null;
            }
            given[0] = true;
            return bytes;
        };
    }
}
