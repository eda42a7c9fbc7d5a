package io.kafkapixy.server.grpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.kafkapixy.tracing.Tracing;
import io.opentelemetry.context.propagation.TextMapGetter;

/**
 * The W3C trace context ({@code traceparent}, {@code tracestate}) a call's metadata carries, kept in the call's
 * {@link Context} for the service to read ({@link #current()}). A call without {@code traceparent} costs one lookup.
 */
final class GrpcTraceContext implements ServerInterceptor {

    private static final Metadata.Key<String> TRACEPARENT =
            Metadata.Key.of("traceparent", Metadata.ASCII_STRING_MARSHALLER);
    private static final Context.Key<io.opentelemetry.context.Context> TRACE = Context.key("kafkapixy-trace");

    private static final TextMapGetter<Metadata> METADATA = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Metadata metadata) {
            return metadata.keys();
        }

        @Override
        public String get(Metadata metadata, String key) {
            return metadata == null ? null : metadata.get(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER));
        }
    };

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                      ServerCallHandler<Q, R> next) {
        if (!headers.containsKey(TRACEPARENT)) {
            return next.startCall(call, headers);
        }
        return Contexts.interceptCall(Context.current().withValue(TRACE, Tracing.extract(headers, METADATA)), call,
                headers, next);
    }

    /** The trace context of the call running on this thread; the root context when it came with none. */
    static io.opentelemetry.context.Context current() {
        io.opentelemetry.context.Context trace = TRACE.get();
        return trace == null ? io.opentelemetry.context.Context.root() : trace;
    }
}
