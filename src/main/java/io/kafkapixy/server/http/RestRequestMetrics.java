package io.kafkapixy.server.http;

import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.kafkapixy.ops.PixyMetrics;

/**
 * Counts every REST request by route and status once it is answered. The route is the matched path template
 * ({@code POST /topics/{topic}/messages}), never the raw path, so the label set stays bounded.
 */
public final class RestRequestMetrics implements Filter {

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
            metrics.apiRequest("rest", req.prologue().method().text() + " " + route,
                    String.valueOf(res.status().code()));
        }
    }
}
