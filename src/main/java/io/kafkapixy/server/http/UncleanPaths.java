package io.kafkapixy.server.http;

import java.nio.charset.StandardCharsets;

import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;

/**
 * Answers 404 to a path with an empty or dot segment ({@code /topics//messages}, {@code /topics/./offsets}). Routing
 * sees the normalized path, in which {@code /topics//messages} is {@code /topics/messages}: the empty topic name
 * would become a request about a topic called {@code messages}, with a Kafka call for it. The original's router
 * redirects such paths to the cleaned one; a 404 names no resource that the client did not ask for.
 */
final class UncleanPaths implements Filter {

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        if (unclean(req.prologue().uriPath().rawPathNoParams())) {
            RestApi.notFound(res);
            return;
        }
        chain.proceed();
    }

    /** {@code %2E} is a dot too; a segment that does not decode is left to the route. */
    private static String decoded(String raw) {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        try {
            return java.net.URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return raw;
        }
    }

    /** Whether a segment after the leading slash is empty, {@code .} or {@code ..}; a trailing slash is one. */
    static boolean unclean(String rawPath) {
        String[] segments = rawPath.split("/", -1);
        for (int i = 1; i < segments.length; i++) {
            String s = decoded(segments[i]);
            if (s.isEmpty() && !(i == segments.length - 1 && i == 1) || s.equals(".") || s.equals("..")) {
                return true;
            }
        }
        return false;
    }
}
