package io.kafkapixy.server.grpc;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.kafkapixy.security.BearerTokens;

/**
 * Requires {@code authorization: Bearer <token>} metadata on every gRPC call but the health service's, which probes
 * call without credentials. A missing and a wrong token get the same UNAUTHENTICATED, and the call's message is
 * never read.
 */
final class GrpcBearerAuth implements ServerInterceptor {

    static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    private static final String OPEN_SERVICE = "grpc.health.v1.Health";

    private final BearerTokens tokens;

    GrpcBearerAuth(BearerTokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                       ServerCallHandler<Q, R> next) {
        if (OPEN_SERVICE.equals(call.getMethodDescriptor().getServiceName())
            || tokens.accepts(headers.get(AUTHORIZATION))) {
            return next.startCall(call, headers);
        }
        call.close(Status.UNAUTHENTICATED.withDescription("unauthenticated"), new Metadata());
        return new ServerCall.Listener<>() { };
    }
}
