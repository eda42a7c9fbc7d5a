package io.kafkapixy.server.http;

import java.security.Principal;
import java.util.Map;

import javax.security.auth.x500.X500Principal;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.helidon.webserver.http.ServerRequest;
import io.kafkapixy.security.Identities;
import io.kafkapixy.security.NamedClient;

/**
 * Who a REST request acts as ({@link Identities}: {@code Authorization: Bearer <token or JWT>}, or the verified client
 * certificate), required on every route but the liveness ones ({@code /_ping}, {@code /health} and below), which
 * probes call without credentials, and the in-flight page, a static file a browser loads without a header (it holds
 * no data: it asks for a token when {@code /inflight} answers 401). A missing and a wrong credential get the same 401,
 * {@code {"error": "Unauthorized"}}: nothing tells a caller which it was. The client is then in the request's context
 * for the routes to ask what it may do ({@link #client}).
 */
public final class RestAuth implements Filter {

    private final Identities identities;

    public RestAuth(Identities identities) {
        this.identities = identities;
    }

    static boolean open(String path) {
        return path.equals("/_ping") || path.equals("/health") || path.startsWith("/health/")
               || path.equals(InFlightPage.PATH);
    }

    /** Who {@code req} acts as; anyone when no credential is configured (no filter then). */
    static NamedClient client(ServerRequest req) {
        return req.context().get(NamedClient.class).orElse(Identities.ANYONE);
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        // the normalized path, as routing sees it: "/health/../topics" is "/topics" there
        if (open(req.path().path())) {
            chain.proceed();
            return;
        }
        var client = identities.identify(req.headers().first(HeaderNames.AUTHORIZATION).orElse(null),
                () -> req.remotePeer().tlsPrincipal().map(RestAuth::subject).orElse(null), null);
        if (client.isPresent()) {
            req.context().register(client.get());
            chain.proceed();
            return;
        }
        res.header(HeaderValues.create(HeaderNames.WWW_AUTHENTICATE, "Bearer"));
        HttpErrors.sendJson(res, Status.UNAUTHORIZED_401, Map.of("error", "Unauthorized"));
    }

    private static X500Principal subject(Principal p) {
        return p instanceof X500Principal x ? x : new X500Principal(p.getName());
    }
}
