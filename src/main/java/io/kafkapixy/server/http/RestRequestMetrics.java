package io.kafkapixy.server.http;

import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.kafkapixy.ops.PixyMetrics;

/**
 * Counts every REST request by route and status once it is answered. The route is the matched path template
 * ({@code POST /topics/{topic}/messages}), never the raw path, so the label set stays bounded; {@code other} when no
 * route matched.
 */
public final class RestRequestMetrics implements Filter {

    /** Request lines are not validated (Go takes any bytes), so an unknown method must not become a label. */
    private static final java.util.Set<String> STANDARD_METHODS =
            java.util.Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "CONNECT");

    private final PixyMetrics metrics;

    public RestRequestMetrics(PixyMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        try {
            chain.proceed();
        } finally {
            String route = req.matchingPattern().filter(p -> !p.isBlank()).orElse("other");
            String method = req.prologue().method().text();
            metrics.apiRequest("rest", (STANDARD_METHODS.contains(method) ? method : "OTHER") + " " + route,
                    String.valueOf(res.status().code()));
        }
    }
}
