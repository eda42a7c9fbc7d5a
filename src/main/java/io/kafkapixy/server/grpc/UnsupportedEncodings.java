package io.kafkapixy.server.grpc;

import java.util.Set;

import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;

/**
 * Answers a call whose {@code grpc-encoding} the server cannot decompress with UNIMPLEMENTED and the encodings it
 * can in {@code grpc-accept-encoding}, as the gRPC compression spec asks. grpc-java refuses such a call before any
 * interceptor runs and without that header, so the stream tracer, which sees (and may change) the request headers
 * first, moves the encoding aside into the call's context, and the interceptor refuses the call before a message is
 * read. A call with a supported encoding or none costs one look at its headers.
 */
final class UnsupportedEncodings extends ServerStreamTracer.Factory implements ServerInterceptor {

    static final Metadata.Key<String> ENCODING = Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> ACCEPT_ENCODING =
            Metadata.Key.of("grpc-accept-encoding", Metadata.ASCII_STRING_MARSHALLER);
    /** Where the refused encoding waits for the interceptor: the call's context, which no client can write. */
    private static final Context.Key<String> REFUSED = Context.key("kafkapixy-refused-encoding");
    private static final ServerStreamTracer NO_TRACING = new ServerStreamTracer() { };

    private final Set<String> supported;
    private final String accepted;

    /**
     * @param supported the encodings the server's decompressor registry holds
     * @param accepted  what {@code grpc-accept-encoding} says, e.g. {@code gzip}
     */
    UnsupportedEncodings(Set<String> supported, String accepted) {
        this.supported = Set.copyOf(supported);
        this.accepted = accepted;
    }

    /** Runs on the transport thread for each new stream; grpc-java allows changing the headers here. */
    @Override
    public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
        String encoding = headers.get(ENCODING);
        if (encoding == null || supported.contains(encoding)) {
            return NO_TRACING;
        }
        headers.discardAll(ENCODING);
        return new ServerStreamTracer() {
            @Override
            public Context filterContext(Context context) {
                return context.withValue(REFUSED, encoding);
            }
        };
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                       ServerCallHandler<Q, R> next) {
        String refused = REFUSED.get();
        if (refused == null) {
            return next.startCall(call, headers);
        }
        Metadata trailers = new Metadata();
        trailers.put(ACCEPT_ENCODING, accepted);
        call.close(BoundedStatusDescriptions.bounded(
                Status.UNIMPLEMENTED.withDescription("Can't find decompressor for " + refused)), trailers);
        return new ServerCall.Listener<>() { };
    }
}
