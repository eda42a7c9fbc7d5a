package io.kafkapixy.server.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;

import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;

/**
 * Gives every answer to an HTTP/1.0 request a {@code Content-Length}: HTTP/1.0 has no chunked transfer coding, and
 * Helidon chunks an answer written as a stream of unknown length (the health endpoint's, for one). Such an answer is
 * gathered whole and written at once, which Helidon sends with its length; an answer that set its length first
 * streams as it is.
 */
public final class Http10Entities implements Filter {

    private final Http10Connections connections;

    public Http10Entities(Http10Connections connections) {
        this.connections = connections;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        if (connections.answeringHttp10(req.socketId())) {
            res.streamFilter(out -> res.headers().contentLength().isPresent() ? out : new WholeEntity(out));
        }
        chain.proceed();
    }

    /** Holds what is written, flushes included, until the answer closes. */
    private static final class WholeEntity extends OutputStream {

        private final OutputStream answer;
        private final ByteArrayOutputStream entity = new ByteArrayOutputStream(1024);
        private boolean closed;

        WholeEntity(OutputStream answer) {
            this.answer = answer;
        }

        @Override
        public void write(int b) {
            entity.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            entity.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            try (answer) {
                if (entity.size() > 0) {
                    answer.write(entity.toByteArray());
                }
            }
        }
    }
}
