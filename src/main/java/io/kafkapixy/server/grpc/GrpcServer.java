package io.kafkapixy.server.grpc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.grpc.Codec;
import io.grpc.DecompressorRegistry;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
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
import io.kafkapixy.security.Guard;
import io.kafkapixy.security.Identities;
import io.kafkapixy.security.ServerTls;
import mailgun.kafkapixy.KafkaPixyGrpc;

/**
 * The gRPC API on grpc-java's own Netty server, the reference implementation that every gRPC client stack is
 * interop-tested against upstream (docs/streaming.md, "Which gRPC server"): {@code KafkaPixy}, {@code grpc.health.v1.Health}
 * and server reflection (v1 and v1alpha), with optional TLS, credentials ({@code auth.*}) and the request size limit.
 *
 * <p>Produce, ConsumeNAck and Ack run on the connection's event loop and never block there (a produce that could
 * wait, a consume that sets up its group, move to a virtual thread first); every other call, which may block (admin
 * calls ask Kafka), runs on a virtual thread of its own. Started by {@link #start}, which also warms a plaintext
 * listener's connection path ({@link ConnectionWarmUp}), stopped by {@link #close}, which lets calls under way finish
 * for a while.
 */
public final class GrpcServer implements AutoCloseable {

    /** How long {@link #close} waits for calls under way before it cancels them. */
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(5);
    /** Concurrent calls on one connection (HTTP/2 streams), as Helidon's gRPC server allowed before. */
    static final int MAX_CALLS_PER_CONNECTION = 8192;
    /**
     * HTTP/2 rapid reset (CVE-2023-44487): a connection that resets more streams than this in the window is closed.
     * Generous, since clients that give up on long polls reset streams in numbers.
     */
    static final int MAX_RESETS_PER_WINDOW = 10_000;
    static final int RESET_WINDOW_SECONDS = 10;

    private final Server server;
    private final ExecutorService calls;
    private final GrpcHealth health;

    private GrpcServer(Server server, ExecutorService calls, GrpcHealth health) {
        this.server = server;
        this.calls = calls;
        this.health = health;
    }

    /**
     * @param host   an address of this machine to listen on ({@code 0.0.0.0} for all)
     * @param port   0 for any free port
     * @param tls    empty for plaintext (h2c with prior knowledge, as gRPC clients speak it)
     * @param identities empty when calls need no credential
     * @param guard      what a call's client may do
     */
    public static GrpcServer start(String host, int port, Optional<ServerTls> tls, Optional<Identities> identities,
                                   Guard guard, LimitsConfig limits, ProxySet proxies, Readiness readiness,
                                   PixyMetrics metrics,
                                   boolean accessLog) {
        GrpcHealth health = new GrpcHealth(readiness);
        LazyGzip gzip = new LazyGzip();
        DecompressorRegistry decompressors = DecompressorRegistry.emptyInstance()
                .with(Codec.Identity.NONE, false).with(gzip, true);
        UnsupportedEncodings encodings = new UnsupportedEncodings(decompressors.getKnownMessageEncodings(),
                gzip.getMessageEncoding());
        // every call that may block runs here, also one that leaves the event loop, so close() stops them all
        ExecutorService calls = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("grpc-call").factory());
        ServerServiceDefinition api = new GrpcApi(proxies, guard, calls).bindService();
        ServerServiceDefinition streams = new StreamApi(proxies, guard, limits, metrics).bindService();
        List<ServerServiceDefinition> services = List.of(
                service(ServerInterceptors.intercept(StrictRequestParsing.of(api),
                        new GrpcTraceContext(proxies.tracing())), identities),
                service(ServerInterceptors.intercept(StrictRequestParsing.of(streams), new StreamPeers(),
                        new GrpcTraceContext(proxies.tracing())), identities),
                service(StrictRequestParsing.of(health.bindService()), identities),
                service(ProtoReflectionServiceV1.newInstance().bindService(), identities),
                service(legacyReflection(), identities));
        Set<String> methods = services.stream().flatMap(d -> d.getMethods().stream())
                .map(m -> m.getMethodDescriptor().getFullMethodName()).collect(Collectors.toSet());
        NettyServerBuilder builder = NettyServerBuilder
                .forAddress(new InetSocketAddress(host, port), credentials(tls))
                // grpc-java looks the method up on this executor before it moves the call to the one CallThreads
                // chooses: on the event loop that costs nothing, on a virtual thread a hand-off per call
                .directExecutor()
                .callExecutor(new CallThreads(Set.of(KafkaPixyGrpc.getAckMethod().getFullMethodName(),
                        KafkaPixyGrpc.getConsumeNAckMethod().getFullMethodName(),
                        KafkaPixyGrpc.getProduceMethod().getFullMethodName()), calls))
                .decompressorRegistry(decompressors)
                .addStreamTracerFactory(encodings)
                .addStreamTracerFactory(new GrpcRequestMetrics(metrics, accessLog, methods))
                // the original's grpc.MaxRecvMsgSize: refused from the length prefix, before the body is read
                .maxInboundMessageSize(limits.grpcMaxRequestBytes())
                .maxInboundMetadataSize(limits.maxHeaderBytes())
                .maxConcurrentCallsPerConnection(MAX_CALLS_PER_CONNECTION)
                .maxRstFramesPerWindow(MAX_RESETS_PER_WINDOW, RESET_WINDOW_SECONDS)
                .intercept(encodings);
        services.forEach(builder::addService);
        if (identities.isPresent()) {
            builder.addTransportFilter(GrpcAuth.CONNECTIONS);
        }
        Server server = builder.build();
        try {
            server.start();
        } catch (IOException e) {
            calls.shutdownNow();
            // grpc-java's message says "Failed to bind"; the cause says why (e.g. address already in use)
            String why = e.getCause() == null ? e.getMessage() : e.getMessage() + ": " + e.getCause().getMessage();
            throw new UncheckedIOException("cannot listen for gRPC on " + host + ":" + port + ": " + why, e);
        }
        GrpcServer started = new GrpcServer(server, calls, health);
        if (tls.isEmpty()) {
            ConnectionWarmUp.start(host, started.port());
        }
        return started;
    }

    /**
     * Runs the calls of {@code onTransport} on the connection's event loop (no hand-off to the call and back for the
     * response), every other call on a virtual thread of its own ({@code calls}). The first must not block:
     * Ack takes the group's lock only, ConsumeNAck parks without blocking and answers when its message comes, Produce
     * hands its message to the producer only when that cannot wait and answers from the producer's thread (else it
     * moves to a virtual thread first).
     */
    private record CallThreads(Set<String> onTransport, Executor calls) implements ServerCallExecutorSupplier {
        @Override
        public <ReqT, RespT> Executor getExecutor(ServerCall<ReqT, RespT> call, Metadata headers) {
            // null: the server's own executor, the event loop
            return onTransport.contains(call.getMethodDescriptor().getFullMethodName()) ? null : calls;
        }
    }

    /** Who the call acts as first, then the cut of long status texts closest to the service. */
    private static ServerServiceDefinition service(ServerServiceDefinition service, Optional<Identities> identities) {
        ServerServiceDefinition bounded = ServerInterceptors.intercept(service, new BoundedStatusDescriptions());
        return identities.map(i -> ServerInterceptors.intercept(bounded, new GrpcAuth(i))).orElse(bounded);
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

    /**
     * Stops taking calls and ends health watches; lets the calls under way finish for {@link #CLOSE_GRACE}, then
     * cancels the rest and waits as long again for their threads.
     */
    @Override
    public void close() {
        server.shutdown();
        health.stop();
        try {
            if (!server.awaitTermination(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                server.shutdownNow();
                server.awaitTermination(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
            calls.shutdownNow();
            calls.awaitTermination(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            server.shutdownNow();
            calls.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
