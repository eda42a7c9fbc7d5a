package io.kafkapixy.server.grpc;

import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.kafkapixy.tracing.CallSpan;
import io.kafkapixy.tracing.Tracing;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;

/**
 * A call's trace: the W3C trace context its metadata carries ({@code traceparent}, {@code tracestate}) and its server
 * span when spans are made ({@link CallSpan}, ended with the status the client got), current on whichever thread runs
 * the call's handlers, so that what the call produces or consumes continues the trace. A call without
 * {@code traceparent}, with no spans made, costs one lookup.
 */
final class GrpcTraceContext implements ServerInterceptor {

    private static final Metadata.Key<String> TRACEPARENT =
            Metadata.Key.of("traceparent", Metadata.ASCII_STRING_MARSHALLER);

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

    private final Tracing tracing;

    GrpcTraceContext(Tracing tracing) {
        this.tracing = tracing;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                      ServerCallHandler<Q, R> next) {
        boolean carried = headers.containsKey(TRACEPARENT);
        if (!carried && !tracing.recording()) {
            return next.startCall(call, headers);
        }
        CallSpan span = CallSpan.rpc(tracing, carried ? Tracing.extract(headers, METADATA) : Context.root(),
                call.getMethodDescriptor().getFullMethodName());
        Context context = span.context();
        AtomicBoolean ended = new AtomicBoolean();
        ServerCall<Q, R> traced = new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                try {
                    super.close(status, trailers);
                } finally {
                    if (ended.compareAndSet(false, true)) {
                        span.closed(status.getCode().value(), status.getCode().name(), status.getDescription());
                    }
                }
            }
        };
        ServerCall.Listener<Q> listener;
        try (Scope ignored = context.makeCurrent()) {
            listener = next.startCall(traced, headers);
        }
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
            @Override
            public void onMessage(Q message) {
                try (Scope ignored = context.makeCurrent()) {
                    super.onMessage(message);
                }
            }

            @Override
            public void onHalfClose() {
                try (Scope ignored = context.makeCurrent()) {
                    super.onHalfClose();
                }
            }

            @Override
            public void onReady() {
                try (Scope ignored = context.makeCurrent()) {
                    super.onReady();
                }
            }

            @Override
            public void onComplete() {
                try (Scope ignored = context.makeCurrent()) {
                    super.onComplete();
                }
            }

            @Override
            public void onCancel() {
                try (Scope ignored = context.makeCurrent()) {
                    super.onCancel();
                } finally {
                    if (ended.compareAndSet(false, true)) {
                        // the server's own deadline cancels with a timeout; the client, or a lost connection, not
                        Status.Code code = io.grpc.Context.current().cancellationCause() instanceof TimeoutException
                                ? Status.Code.DEADLINE_EXCEEDED : Status.Code.CANCELLED;
                        span.closed(code.value(), code.name(), "the call ended before it was answered");
                    }
                }
            }
        };
    }
}
