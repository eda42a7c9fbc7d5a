package io.kafkapixy.server.grpc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.grpc.Codec;
import io.grpc.DecompressorRegistry;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.ProtoReflectionService;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.kafkapixy.config.LimitsConfig;
import io.kafkapixy.ops.PixyMetrics;
import io.kafkapixy.ops.Readiness;
import io.kafkapixy.proxy.ProxySet;
import io.kafkapixy.security.BearerTokens;
import io.kafkapixy.security.ServerTls;

/**
 * The gRPC API on grpc-java's own Netty server, the reference implementation that every gRPC client stack is
 * interop-tested against upstream (README, "Which gRPC server"): {@code KafkaPixy}, {@code grpc.health.v1.Health}
 * and server reflection (v1 and v1alpha), with optional TLS, bearer tokens and the request size limit.
 *
 * <p>Handlers block (a long poll parks for up to {@code long_polling_timeout}), so every call runs on a virtual
 * thread; Netty's event loop only moves bytes. Started by {@link #start}, stopped by {@link #close}, which lets
 * calls under way finish for a while.
 */
public final class GrpcServer implements AutoCloseable {

    /** How long {@link #close} waits for calls under way before it cancels them. */
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(5);

    private final Server server;
    private final ExecutorService calls;

    private GrpcServer(Server server, ExecutorService calls) {
        this.server = server;
        this.calls = calls;
    }

    /**
     * @param host   an address of this machine to listen on ({@code 0.0.0.0} for all)
     * @param port   0 for any free port
     * @param tls    empty for plaintext (h2c with prior knowledge, as gRPC clients speak it)
     * @param tokens empty when calls need no bearer token
     */
    public static GrpcServer start(String host, int port, Optional<ServerTls> tls, Optional<BearerTokens> tokens,
                                   LimitsConfig limits, ProxySet proxies, Readiness readiness, PixyMetrics metrics,
                                   boolean accessLog) {
        LazyGzip gzip = new LazyGzip();
        DecompressorRegistry decompressors = DecompressorRegistry.emptyInstance()
                .with(Codec.Identity.NONE, false).with(gzip, true);
        UnsupportedEncodings encodings = new UnsupportedEncodings(decompressors.getKnownMessageEncodings(),
                gzip.getMessageEncoding());
        ExecutorService calls = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("grpc-call-", 0).factory());
        NettyServerBuilder builder = NettyServerBuilder
                .forAddress(new InetSocketAddress(host, port), credentials(tls))
                .executor(calls)
                .decompressorRegistry(decompressors)
                .addStreamTracerFactory(encodings)
                // the original's grpc.MaxRecvMsgSize: refused from the length prefix, before the body is read
                .maxInboundMessageSize(limits.grpcMaxRequestBytes())
                .maxInboundMetadataSize(limits.maxHeaderBytes())
                .addService(service(StrictRequestParsing.of(new GrpcApi(proxies).bindService()), tokens))
                .addService(service(StrictRequestParsing.of(new GrpcHealth(readiness).bindService()), tokens))
                .addService(service(ProtoReflectionServiceV1.newInstance().bindService(), tokens))
                .addService(service(legacyReflection(), tokens))
                .intercept(encodings)
                // outermost (added last), so it sees every call and the status it ends with, including refusals
                .intercept(new GrpcRequestMetrics(metrics, accessLog));
        Server server = builder.build();
        try {
            server.start();
        } catch (IOException e) {
            calls.shutdownNow();
            throw new UncheckedIOException("cannot listen for gRPC on " + host + ":" + port + ": " + e.getMessage(),
                    e);
        }
        return new GrpcServer(server, calls);
    }

    /** The bearer check first, then the cut of long status texts closest to the service. */
    private static ServerServiceDefinition service(ServerServiceDefinition service, Optional<BearerTokens> tokens) {
        ServerServiceDefinition bounded = ServerInterceptors.intercept(service, new BoundedStatusDescriptions());
        return tokens.map(t -> ServerInterceptors.intercept(bounded, new GrpcBearerAuth(t))).orElse(bounded);
    }

    /** grpcurl and older tools still ask {@code grpc.reflection.v1alpha} first. */
    @SuppressWarnings("deprecation")
    private static ServerServiceDefinition legacyReflection() {
        return ProtoReflectionService.newInstance().bindService();
    }

    private static ServerCredentials credentials(Optional<ServerTls> tls) {
        if (tls.isEmpty()) {
            return InsecureServerCredentials.create();
        }
        ServerTls material = tls.get();
        TlsServerCredentials.Builder credentials = TlsServerCredentials.newBuilder()
                .keyManager(material.keyManagers());
        if (!material.clientCas().isEmpty()) {
            credentials.trustManager(material.trustManagers())
                    .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
        }
        return credentials.build();
    }

    /** The bound port. */
    public int port() {
        return ((InetSocketAddress) server.getListenSockets().getFirst()).getPort();
    }

    /** Stops taking calls, lets those under way finish for {@link #CLOSE_GRACE}, then cancels the rest. */
    @Override
    public void close() {
        server.shutdown();
        try {
            if (!server.awaitTermination(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                server.shutdownNow();
                server.awaitTermination(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            server.shutdownNow();
            Thread.currentThread().interrupt();
        } finally {
            calls.shutdownNow();
        }
    }
}
