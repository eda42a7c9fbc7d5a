package io.kafkapixy.tracing;

import java.util.Set;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;

/**
 * The server span of one REST or gRPC call, named and described after OpenTelemetry's HTTP and RPC conventions, a
 * child of the trace context the call came with. What the call does (produce, consume, ack) makes its spans under
 * {@link #context()}. The status the client got is recorded on the span; the span is an error for a 5xx answer and
 * for the gRPC codes that mean a fault of the server (UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL,
 * UNAVAILABLE, DATA_LOSS), as the conventions say: a refusal of the client's request (4xx, NOT_FOUND,
 * INVALID_ARGUMENT) is the answer it asked for, not a failure of the server.
 *
 * <p>When no spans are made the call's context is only passed on: {@link #context()} is the one it came with.
 */
public final class CallSpan {

    static final AttributeKey<String> HTTP_METHOD = AttributeKey.stringKey("http.request.method");
    static final AttributeKey<String> HTTP_ROUTE = AttributeKey.stringKey("http.route");
    static final AttributeKey<Long> HTTP_STATUS = AttributeKey.longKey("http.response.status_code");
    static final AttributeKey<String> URL_PATH = AttributeKey.stringKey("url.path");
    static final AttributeKey<String> URL_SCHEME = AttributeKey.stringKey("url.scheme");
    static final AttributeKey<String> RPC_SYSTEM = AttributeKey.stringKey("rpc.system");
    static final AttributeKey<String> RPC_SERVICE = AttributeKey.stringKey("rpc.service");
    static final AttributeKey<String> RPC_METHOD = AttributeKey.stringKey("rpc.method");
    static final AttributeKey<Long> GRPC_STATUS = AttributeKey.longKey("rpc.grpc.status_code");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    /** Request lines are not validated, so a method outside these is named {@code _OTHER}, as the conventions say. */
    private static final Set<String> HTTP_METHODS =
            Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "CONNECT");
    /** gRPC codes that are the server's fault: UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE,
     *  DATA_LOSS. */
    private static final Set<Integer> GRPC_SERVER_FAULTS = Set.of(2, 4, 12, 13, 14, 15);

    /** Null when no span is made. */
    private final Span span;
    private final Context context;
    private final String method;

    private CallSpan(Span span, Context context, String method) {
        this.span = span;
        this.context = context;
        this.method = method;
    }

    /** A REST call of {@code method} on {@code path}; its route is named when it is answered. */
    public static CallSpan http(Tracing tracing, Context parent, String method, String path, boolean https) {
        if (!tracing.recording()) {
            return new CallSpan(null, parent, method);
        }
        String m = HTTP_METHODS.contains(method) ? method : "_OTHER";
        Span span = tracing.tracer().spanBuilder(m).setSpanKind(SpanKind.SERVER).setParent(parent)
                .setAttribute(HTTP_METHOD, m).setAttribute(URL_PATH, path)
                .setAttribute(URL_SCHEME, https ? "https" : "http").startSpan();
        return new CallSpan(span, parent.with(span), m);
    }

    /** A gRPC call of {@code fullMethod} ({@code service/method}). */
    public static CallSpan rpc(Tracing tracing, Context parent, String fullMethod) {
        if (!tracing.recording()) {
            return new CallSpan(null, parent, fullMethod);
        }
        int slash = fullMethod.lastIndexOf('/');
        Span span = tracing.tracer().spanBuilder(fullMethod).setSpanKind(SpanKind.SERVER).setParent(parent)
                .setAttribute(RPC_SYSTEM, "grpc")
                .setAttribute(RPC_SERVICE, slash < 0 ? "" : fullMethod.substring(0, slash))
                .setAttribute(RPC_METHOD, fullMethod.substring(slash + 1)).startSpan();
        return new CallSpan(span, parent.with(span), fullMethod);
    }

    /** The context the call's own spans are made under: its span's, or the one it came with when there is none. */
    public Context context() {
        return context;
    }

    /** The REST call was answered {@code status}; {@code route} is the matched path template, null if none. */
    public void answered(String route, int status) {
        if (span == null) {
            return;
        }
        if (route != null) {
            span.setAttribute(HTTP_ROUTE, route);
            span.updateName(method + " " + route);
        }
        span.setAttribute(HTTP_STATUS, (long) status);
        if (status >= 500) {
            span.setAttribute(ERROR_TYPE, Integer.toString(status));
            span.setStatus(StatusCode.ERROR);
        }
        span.end();
    }

    /** The gRPC call ended with {@code code} ({@code name}, e.g. {@code NOT_FOUND}) and {@code description}. */
    public void closed(int code, String name, String description) {
        if (span == null) {
            return;
        }
        span.setAttribute(GRPC_STATUS, (long) code);
        if (GRPC_SERVER_FAULTS.contains(code)) {
            span.setAttribute(ERROR_TYPE, name);
            span.setStatus(StatusCode.ERROR, description == null ? name : description);
        }
        span.end();
    }
}
