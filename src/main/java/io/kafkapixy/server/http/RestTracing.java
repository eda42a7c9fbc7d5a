package io.kafkapixy.server.http;

import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.ServerRequestHeaders;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.kafkapixy.tracing.CallSpan;
import io.kafkapixy.tracing.Tracing;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;

/**
 * A REST call's trace: the W3C trace context of its {@code traceparent} and {@code tracestate} headers, and its server
 * span when spans are made ({@link CallSpan}), current on the request's thread while it is handled, so that what the
 * call produces or consumes continues the trace. A request without {@code traceparent}, with no spans made, costs one
 * header lookup.
 */
public final class RestTracing implements Filter {

    private static final HeaderName TRACEPARENT = HeaderNames.create("traceparent");
    private static final TextMapGetter<ServerRequestHeaders> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(ServerRequestHeaders headers) {
            return headers.stream().map(h -> h.name()).toList();
        }

        @Override
        public String get(ServerRequestHeaders headers, String key) {
            return headers == null ? null : headers.first(HeaderNames.create(key)).orElse(null);
        }
    };

    private final Tracing tracing;

    public RestTracing(Tracing tracing) {
        this.tracing = tracing;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        boolean carried = req.headers().contains(TRACEPARENT);
        if (!carried && !tracing.recording()) {
            chain.proceed();
            return;
        }
        Context parent = carried ? Tracing.extract(req.headers(), HEADERS) : Context.root();
        CallSpan call = CallSpan.http(tracing, parent, req.prologue().method().text(), req.path().rawPath(),
                req.isSecure());
        try (Scope ignored = call.context().makeCurrent()) {
            chain.proceed();
        } finally {
            call.answered(req.matchingPattern().filter(p -> !p.isBlank()).orElse(null), res.status().code());
        }
    }
}
