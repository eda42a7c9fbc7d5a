package io.kafkapixy.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * {@code GET /inflight.html}: the in-flight page, one self-contained HTML file in the jar (its script and style inline,
 * nothing fetched from elsewhere) that reads {@code /inflight} every second and draws it. It holds no data, so it is
 * served without a token; the page asks for one when {@code /inflight} answers 401.
 */
final class InFlightPage {

    static final String PATH = "/inflight.html";
    private static final byte[] PAGE = load();

    private InFlightPage() {
    }

    private static byte[] load() {
        try (InputStream in = InFlightPage.class.getResourceAsStream("inflight.html")) {
            if (in == null) {
                throw new IllegalStateException("inflight.html is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void send(ServerRequest req, ServerResponse res) {
        res.header(HeaderValues.create(HeaderNames.CONTENT_TYPE, "text/html; charset=utf-8"));
        res.header(HeaderValues.create(HeaderNames.CACHE_CONTROL, "no-cache"));
        // the page's own inline script and style, and calls back to this server only
        res.header(HeaderValues.create("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; "
                + "style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; "
                + "frame-ancestors 'none'"));
        res.header(HeaderValues.create("X-Content-Type-Options", "nosniff"));
        res.send(PAGE);
    }
}
