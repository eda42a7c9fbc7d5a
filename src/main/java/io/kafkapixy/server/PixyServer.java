package io.kafkapixy.server;

import java.util.Optional;

import io.helidon.common.socket.SocketOptions;
import io.helidon.common.tls.Tls;
import io.helidon.common.tls.TlsClientAuth;
import io.helidon.common.tls.TlsConfig;
import io.helidon.http.DirectHandler;
import io.helidon.openapi.OpenApiFeature;
import io.helidon.webserver.ErrorHandling;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.accesslog.AccessLogFeature;
import io.helidon.webserver.http.DirectHandlers;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http2.Http2Config;
import io.helidon.webserver.observe.ObserveFeature;
import io.helidon.webserver.observe.health.HealthObserver;
import io.helidon.webserver.observe.metrics.MetricsObserver;
import io.kafkapixy.config.LimitsConfig;
import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.ops.HealthChecks;
import io.kafkapixy.ops.PixyMetrics;
import io.kafkapixy.ops.Readiness;
import io.kafkapixy.proxy.ProxySet;
import io.kafkapixy.security.Guard;
import io.kafkapixy.security.Identities;
import io.kafkapixy.security.ServerTls;
import io.kafkapixy.server.grpc.GrpcServer;
import io.kafkapixy.server.http.Http10Connections;
import io.kafkapixy.server.http.Http10Entities;
import io.kafkapixy.server.http.NotHttpRequests;
import io.kafkapixy.server.http.RestApi;
import io.kafkapixy.server.http.RestAuth;
import io.kafkapixy.server.http.RestRequestMetrics;
import io.kafkapixy.server.http.RestTracing;
import io.kafkapixy.server.http.RestTransportErrors;

/**
 * The REST API on {@code tcp_addr}, served by Helidon (virtual threads), and the gRPC API on {@code grpc_addr},
 * served by grpc-java's Netty server ({@link GrpcServer}; docs/streaming.md, "Which gRPC server"); an empty address leaves that
 * API out. Next to the REST API: Prometheus {@code /metrics}, {@code /health/live} and {@code /health/ready}, and the
 * OpenAPI document at {@code /openapi}. Next to the gRPC API: {@code grpc.health.v1.Health} and server reflection.
 * Both share the optional TLS ({@code tls.*}), bearer tokens ({@code auth.*}) and {@code limits}. Transports only;
 * the {@link ProxySet} is owned by the caller and must outlive the server.
 */
public final class PixyServer implements AutoCloseable {

    /** Where access log lines go, for both APIs. */
    public static final String ACCESS_LOGGER = "io.kafkapixy.access";

    /**
     * Every answer is one small write: without TCP_NODELAY, Nagle's algorithm holds it until the client's delayed
     * ACK (~40 ms).
     */
    private static final SocketOptions NO_DELAY = SocketOptions.builder().tcpNoDelay(true).build();
    // REST sockets use Helidon's plain (not NIO) socket: it keeps one 8 KiB buffer per connection instead of two,
    // which matters with one connection per parked long poll.

    /**
     * REST over HTTP/2 (h2c or ALPN): with a window of at least four frames Helidon 4.5 batches the connection's
     * inbound WINDOW_UPDATEs in a counter that concurrent streams update without synchronization, and under load it
     * sends an increment of 0, a protocol error that makes clients drop the connection. A window under four frames
     * selects its other strategy, which sends each consumed frame's own increment.
     */
    private static final int HTTP2_SIMPLE_WINDOW = 65_535;

    /** Hands the HTTP parser's own message (e.g. headers too large) to {@link RestTransportErrors}. */
    private static final ErrorHandling PARSER_MESSAGES = ErrorHandling.builder().includeEntity(true).build();

    private final Optional<WebServer> rest;
    private final Optional<GrpcServer> grpc;
    private final Optional<AuthFiles> auth;

    private PixyServer(Optional<WebServer> rest, Optional<GrpcServer> grpc, Optional<AuthFiles> auth) {
        this.rest = rest;
        this.grpc = grpc;
        this.auth = auth;
    }

    public static PixyServer start(PixyConfig config, ProxySet proxies, PixyMetrics metrics, Readiness readiness) {
        boolean restOn = !config.tcpAddr().isEmpty();
        boolean grpcOn = !config.grpcAddr().isEmpty();
        if (!restOn && !grpcOn) {
            throw new IllegalArgumentException("at least one API server should be configured");
        }
        // both addresses are checked before anything listens
        Optional<ListenAddress> restAddr = restOn
                ? Optional.of(ListenAddress.parse("tcp_addr", config.tcpAddr())) : Optional.empty();
        Optional<ListenAddress> grpcAddr = grpcOn
                ? Optional.of(ListenAddress.parse("grpc_addr", config.grpcAddr())) : Optional.empty();
        LimitsConfig limits = config.limits();
        Optional<ServerTls> tls = config.tls().enabled()
                ? Optional.of(ServerTls.load(config.tls().certificatePath(), config.tls().keyPath(),
                        config.tls().clientCaPath()))
                : Optional.empty();
        Optional<AuthFiles> auth = config.auth().enabled() ? Optional.of(AuthFiles.load(config.auth()))
                : Optional.empty();
        Optional<Identities> identities = auth.map(AuthFiles::identities);
        Guard guard = Guard.logging(metrics::authRefusal);
        Optional<GrpcServer> grpc = grpcAddr.map(a -> GrpcServer.start(a.host(), a.port(), tls, identities, guard,
                limits, proxies, readiness, metrics, config.accessLog()));
        boolean started = false;
        try {
            Optional<WebServer> rest = restAddr.map(a -> rest(a, config, tls, identities, guard, proxies, metrics,
                    readiness));
            started = true;
            return new PixyServer(rest, grpc, auth);
        } finally {
            if (!started) {
                grpc.ifPresent(GrpcServer::close);
                auth.ifPresent(AuthFiles::close);
            }
        }
    }

    private static WebServer rest(ListenAddress addr, PixyConfig config, Optional<ServerTls> tls,
                                  Optional<Identities> identities, Guard guard, ProxySet proxies,
                                  PixyMetrics metrics, Readiness readiness) {
        LimitsConfig limits = config.limits();
        WebServerConfig.Builder builder = WebServer.builder().shutdownHook(false)
                // every feature is added here, explicitly
                .featuresDiscoverServices(false);
        HttpRouting.Builder routing = HttpRouting.builder();
        routing.addFilter(new RestRequestMetrics(metrics));
        routing.addFilter(new RestTracing(proxies.tracing()));
        identities.ifPresent(i -> routing.addFilter(new RestAuth(i)));
        new RestApi(proxies, guard, config.inflightRows(), config.inflightMessages()).register(routing);
        // Go takes any bytes in a query ({@code key=a|b}, raw UTF-8); parameters are parsed like Go's.
        // Helidon 4.5's plain socket does not ask for client certificates (it drops the TLS client-auth
        // setting; ServerTlsTest catches it), so mutual TLS takes the NIO socket and its second buffer.
        boolean useNio = config.tls().clientAuth();
        DirectHandlers transportErrors = DirectHandlers.builder()
                .addHandler(DirectHandler.EventType.BAD_REQUEST, new RestTransportErrors(limits.maxHeaderBytes()))
                .build();
        Http1Config http1 = Http1Config.builder().validatePrologue(false)
                .maxPrologueLength(limits.maxRequestLineBytes())
                .maxHeadersSize(limits.maxHeaderBytes()).build();
        Http10Connections http10 = new Http10Connections(http1);
        routing.addFilter(new Http10Entities(http10));
        Http2Config http2 = Http2Config.builder().initialWindowSize(HTTP2_SIMPLE_WINDOW)
                .maxHeaderListSize(limits.maxHeaderBytes()).build();
        builder.host(addr.host()).port(addr.port()).routing(routing).addProtocol(http1).addProtocol(http2)
                .maxPayloadSize(maxPayload(config)).connectionOptions(NO_DELAY).useNio(useNio)
                .maxTcpConnections(limits.maxRestConnections())
                .directHandlers(transportErrors).errorHandling(PARSER_MESSAGES)
                .addConnectionSelector(new NotHttpRequests())
                .addConnectionSelector(http10);
        tls.map(PixyServer::tls).ifPresent(builder::tls);
        builder.addFeature(ObserveFeature.builder()
                .endpoint("/")
                .observersDiscoverServices(false)
                .addObserver(MetricsObserver.builder().endpoint("metrics")
                        .meterRegistry(metrics.registry()).build())
                .addObserver(HealthObserver.builder().endpoint("health").details(true)
                        .useSystemServices(false)
                        .addHealthChecks(HealthChecks.readiness(readiness)).build())
                .build());
        builder.addFeature(OpenApiFeature.builder().webContext("/openapi").build());
        if (config.accessLog()) {
            builder.addFeature(AccessLogFeature.builder().loggerName(ACCESS_LOGGER).build());
        }
        return builder.build().start();
    }

    /**
     * The REST socket's TLS from the original's PEM files; with {@code tls.client_ca_path}, a client certificate from
     * one of those CAs is required (the JDK's PKIX checks: chain, validity dates, key usage).
     */
    private static Tls tls(ServerTls material) {
        TlsConfig.Builder tls = Tls.builder()
                .privateKey(material.key())
                .privateKeyCertChain(material.chain());
        if (!material.clientCas().isEmpty()) {
            tls.trust(material.clientCas()).clientAuth(TlsClientAuth.REQUIRED);
        }
        return tls.build();
    }

    /** Bodies above this are refused by the HTTP layer; below it the produce handler answers with the texts. */
    private static long maxPayload(PixyConfig config) {
        long max = 10L << 20;
        for (var p : config.proxies().values()) {
            max = Math.max(max, p.producer().maxMessageBytes());
        }
        return max + 1;
    }

    /** The bound REST port, if the REST API is on. */
    public Optional<Integer> restPort() {
        return rest.map(WebServer::port);
    }

    /** The bound gRPC port, if the gRPC API is on. */
    public Optional<Integer> grpcPort() {
        return grpc.map(GrpcServer::port);
    }

    @Override
    public void close() {
        try {
            grpc.ifPresent(GrpcServer::close);
        } finally {
            rest.ifPresent(WebServer::stop);
            auth.ifPresent(AuthFiles::close);
        }
    }
}
