package io.kafkapixy.server.grpc;

import java.util.Set;

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
 * first, moves the encoding aside, and the interceptor refuses the call before a message is read.
 */
final class UnsupportedEncodings extends ServerStreamTracer.Factory implements ServerInterceptor {

    static final Metadata.Key<String> ENCODING = Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> ACCEPT_ENCODING =
            Metadata.Key.of("grpc-accept-encoding", Metadata.ASCII_STRING_MARSHALLER);
    /** Where the refused encoding waits for the interceptor; never taken from a client. */
    private static final Metadata.Key<String> REFUSED =
            Metadata.Key.of("kafkapixy-internal-refused-encoding", Metadata.ASCII_STRING_MARSHALLER);
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
        headers.discardAll(REFUSED);
        String encoding = headers.get(ENCODING);
        if (encoding != null && !supported.contains(encoding)) {
            headers.discardAll(ENCODING);
            headers.put(REFUSED, encoding);
        }
        return NO_TRACING;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                       ServerCallHandler<Q, R> next) {
        String refused = headers.get(REFUSED);
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
