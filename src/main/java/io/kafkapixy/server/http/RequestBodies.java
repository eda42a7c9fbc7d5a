package io.kafkapixy.server.http;

import java.io.IOException;

import io.helidon.webserver.http.ServerRequest;
import io.kafkapixy.errors.PixyException;

/** Reading a REST request's body, bounded, with the original's texts for what goes wrong. */
final class RequestBodies {

    /** Go's {@code ParseForm} reads at most 10 MB of a form body. */
    static final int MAX_FORM_BYTES = 10 << 20;

    private RequestBodies() {
    }

    /** Reads at most {@code limit} bytes of body; a longer body is refused as too large. */
    static byte[] read(ServerRequest req, int limit) {
        if (!req.content().hasEntity()) {
            return new byte[0];
        }
        try (var in = req.content().inputStream()) {
            byte[] body = in.readNBytes(limit + 1);
            if (body.length > limit) {
                throw PixyException.messageTooLarge();
            }
            return body;
        } catch (IOException | RuntimeException e) {
            if (e instanceof PixyException p) {
                throw p;
            }
            // The client sent less than it announced, or went away: Go's reader calls that an unexpected EOF.
            String reason = e.getMessage() == null ? "unexpected EOF" : e.getMessage();
            throw PixyException.badRequest("failed to read message: " + reason);
        }
    }
}
