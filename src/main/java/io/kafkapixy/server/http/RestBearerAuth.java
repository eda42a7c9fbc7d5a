package io.kafkapixy.server.http;

import java.util.Map;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.kafkapixy.security.BearerTokens;

/**
 * Requires {@code Authorization: Bearer <token>} on every REST route but the liveness ones ({@code /_ping},
 * {@code /health} and below), which probes call without credentials, and the in-flight page, a static file a
 * browser loads without a header (it holds no data: it asks for a token when {@code /inflight} answers 401). A missing and a wrong token get the same 401,
 * {@code {"error": "Unauthorized"}}: nothing tells a caller which it was.
 */
public final class RestBearerAuth implements Filter {

    private final BearerTokens tokens;

    public RestBearerAuth(BearerTokens tokens) {
        this.tokens = tokens;
    }

    static boolean open(String path) {
        return path.equals("/_ping") || path.equals("/health") || path.startsWith("/health/")
               || path.equals(InFlightPage.PATH);
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        // the normalized path, as routing sees it: "/health/../topics" is "/topics" there
        if (open(req.path().path())
            || tokens.accepts(req.headers().first(HeaderNames.AUTHORIZATION).orElse(null))) {
            chain.proceed();
            return;
        }
        res.header(HeaderValues.create(HeaderNames.WWW_AUTHENTICATE, "Bearer"));
        HttpErrors.sendJson(res, Status.UNAUTHORIZED_401, Map.of("error", "Unauthorized"));
    }
}
