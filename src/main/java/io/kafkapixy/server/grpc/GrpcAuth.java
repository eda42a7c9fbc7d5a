package io.kafkapixy.server.grpc;

import java.security.Principal;

import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.security.auth.x500.X500Principal;

import io.grpc.Attributes;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerTransportFilter;
import io.grpc.Status;
import io.kafkapixy.security.ConnectionIdentity;
import io.kafkapixy.security.Identities;
import io.kafkapixy.security.NamedClient;

/**
 * Who a gRPC call acts as ({@link Identities}: {@code authorization: Bearer <token or JWT>} metadata, or the verified
 * client certificate), required on every call but the health service's, which probes call without credentials. A
 * missing and a wrong credential get the same UNAUTHENTICATED, and the call's message is never read. The client is
 * then in the call's context for the service to ask what it may do ({@link #client}). A connection's last token is
 * remembered ({@link ConnectionIdentity}, given to each connection by {@link #CONNECTIONS}).
 */
final class GrpcAuth implements ServerInterceptor {

    static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    private static final Context.Key<NamedClient> CLIENT = Context.key("kafkapixy-client");
    private static final String OPEN_SERVICE = "grpc.health.v1.Health";

    private static final Attributes.Key<ConnectionIdentity> CONNECTION = Attributes.Key.create("kafkapixy-connection");

    /** Gives each connection its {@link ConnectionIdentity}, which the connection's calls see in their attributes. */
    static final ServerTransportFilter CONNECTIONS = new ServerTransportFilter() {
        @Override
        public Attributes transportReady(Attributes transport) {
            return transport.toBuilder().set(CONNECTION, new ConnectionIdentity()).build();
        }
    };

    private final Identities identities;

    GrpcAuth(Identities identities) {
        this.identities = identities;
    }

    /** Who the call running on this thread acts as; anyone when no credential is configured (no interceptor then). */
    static NamedClient client() {
        NamedClient client = CLIENT.get();
        return client == null ? Identities.ANYONE : client;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                       ServerCallHandler<Q, R> next) {
        if (OPEN_SERVICE.equals(call.getMethodDescriptor().getServiceName())) {
            return next.startCall(call, headers);
        }
        var client = identities.identify(headers.get(AUTHORIZATION), () -> certificateSubject(call),
                call.getAttributes().get(CONNECTION));
        if (client.isPresent()) {
            return Contexts.interceptCall(Context.current().withValue(CLIENT, client.get()), call, headers, next);
        }
        call.close(Status.UNAUTHENTICATED.withDescription("unauthenticated"), new Metadata());
        return new ServerCall.Listener<>() { };
    }

    private static X500Principal certificateSubject(ServerCall<?, ?> call) {
        SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
        if (session == null) {
            return null;
        }
        try {
            Principal p = session.getPeerPrincipal();
            return p instanceof X500Principal x ? x : new X500Principal(p.getName());
        } catch (SSLPeerUnverifiedException noCertificate) {
            return null;
        }
    }
}
