package io.kafkapixy.server.http;

import java.util.Optional;
import java.util.function.Function;

import io.helidon.webserver.http.ServerRequest;

/**
 * A request's parameters read once and kept with the request: the permission check, which needs the group a call
 * names, runs before the handler, and both must see the same group, also one given in a form body, which can be read
 * only once.
 */
final class KeptParams {

    private static final Object KEY = new Object();

    private KeptParams() {
    }

    /** The parameters {@code read} gives for {@code req}, read on the first call for a request and kept. */
    static RequestParams of(ServerRequest req, Function<ServerRequest, RequestParams> read) {
        Optional<RequestParams> kept = req.context().get(KEY, RequestParams.class);
        if (kept.isPresent()) {
            return kept.get();
        }
        RequestParams params = read.apply(req);
        req.context().register(KEY, params);
        return params;
    }
}
