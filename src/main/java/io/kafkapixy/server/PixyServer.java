package io.kafkapixy.server;

import java.util.Optional;
import java.util.Set;

import io.grpc.health.v1.HealthProto;
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
import io.helidon.webserver.grpc.GrpcConfig;
import io.helidon.webserver.grpc.GrpcReflectionFeature;
import io.helidon.webserver.grpc.GrpcRouting;
import io.helidon.webserver.http.DirectHandlers;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http2.Http2Config;
import io.helidon.webserver.observe.ObserveFeature;
import io.helidon.webserver.observe.health.HealthObserver;
import io.helidon.webserver.observe.metrics.MetricsObserver;
import io.kafkapixy.config.LimitsConfig;
import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.config.ServerTlsConfig;
import io.kafkapixy.ops.HealthChecks;
import io.kafkapixy.ops.PixyMetrics;
import io.kafkapixy.ops.Readiness;
import io.kafkapixy.proxy.ProxySet;
import io.kafkapixy.security.BearerTokens;
import io.kafkapixy.security.ServerTls;
import io.kafkapixy.server.grpc.BoundedStatusDescriptions;
import io.kafkapixy.server.grpc.GrpcApi;
import io.kafkapixy.server.grpc.GrpcBearerAuth;
import io.kafkapixy.server.grpc.GrpcHealth;
import io.kafkapixy.server.grpc.GrpcRequestMetrics;
import io.kafkapixy.server.grpc.MaxMessageSize;
import io.kafkapixy.server.grpc.StrictRequestParsing;
import io.kafkapixy.server.grpc.TrimCallBuffers;
import io.kafkapixy.server.http.RestApi;
import io.kafkapixy.server.http.RestBearerAuth;
import io.kafkapixy.server.http.RestRequestMetrics;
import io.kafkapixy.server.http.RestTransportErrors;
import mailgun.kafkapixy.KafkaPixyProto;

/**
 * One Helidon WebServer (virtual threads) with the REST API on {@code tcp_addr} and the gRPC API on
 * {@code grpc_addr}, each its own socket; an empty address leaves that API out. Next to the REST API: Prometheus
 * {@code /metrics}, {@code /health/live} and {@code /health/ready}, and the OpenAPI document at {@code /openapi}.
 * Next to the gRPC API: {@code grpc.health.v1.Health} and server reflection. Both sockets share the optional TLS
 * ({@code tls.*}), bearer tokens ({@code auth.*}) and {@code limits}. Transports only; the {@link ProxySet} is owned
 * by the caller and must outlive the server.
 */
public final class PixyServer implements AutoCloseable {

    /**
     * Name of the REST socket when the gRPC API holds the default one. gRPC takes the default socket whenever it is
     * on, because Helidon's reflection finds the services of a default socket only.
     */
    static final String REST_SOCKET = "rest";
    private static final String DEFAULT_SOCKET = "@default";
    /** Where access log lines go, for both APIs. */
    public static final String ACCESS_LOGGER = "io.kafkapixy.access";

    /**
     * Every answer is one small write: without TCP_NODELAY, Nagle's algorithm holds it until the client's delayed
     * ACK (~40 ms), which made a gRPC call take 50 ms.
     */
    private static final SocketOptions NO_DELAY = SocketOptions.builder().tcpNoDelay(true).build();
    // REST sockets use Helidon's plain (not NIO) socket: it keeps one 8 KiB buffer per connection instead of two,
    // which matters with one connection per parked long poll.

    /**
     * With a window of at least four frames Helidon 4.5 batches the connection's inbound WINDOW_UPDATEs in a counter
     * that concurrent streams update without synchronization, and under load it sends an increment of 0, a
     * protocol error that makes gRPC clients drop the connection with every call on it ("http2 exception"). A
     * window under four frames selects its other strategy, which sends each consumed frame's own increment.
     */
    private static final int HTTP2_SIMPLE_WINDOW = 65_535;

    /** Hands the HTTP parser's own message (e.g. headers too large) to {@link RestTransportErrors}. */
    private static final ErrorHandling PARSER_MESSAGES = ErrorHandling.builder().includeEntity(true).build();

    private final WebServer server;
    private final boolean rest;
    private final boolean grpc;

    private PixyServer(WebServer server, boolean rest, boolean grpc) {
        this.server = server;
        this.rest = rest;
        this.grpc = grpc;
    }

    public static PixyServer start(PixyConfig config, ProxySet proxies, PixyMetrics metrics, Readiness readiness) {
        boolean rest = !config.tcpAddr().isEmpty();
        boolean grpc = !config.grpcAddr().isEmpty();
        if (!rest && !grpc) {
            throw new IllegalArgumentException("at least one API server should be configured");
        }
        WebServerConfig.Builder builder = WebServer.builder().shutdownHook(false)
                // every feature is added here, explicitly, and only to the socket it belongs to
                .featuresDiscoverServices(false);
        LimitsConfig limits = config.limits();
        Optional<Tls> tls = tls(config.tls());
        Optional<BearerTokens> tokens = config.auth().enabled()
                ? Optional.of(BearerTokens.load(config.auth().bearerTokensFile(), config.auth().bearerTokensEnv(),
                        System::getenv))
                : Optional.empty();
        GrpcRouting.Builder grpcRouting = GrpcRouting.builder()
                // outermost: it needs Helidon's own call object
                .intercept(new TrimCallBuffers())
                .intercept(new BoundedStatusDescriptions())
                .intercept(new GrpcRequestMetrics(metrics, config.accessLog()));
        tokens.ifPresent(t -> grpcRouting.intercept(new GrpcBearerAuth(t)));
        grpcRouting.intercept(new MaxMessageSize(limits.grpcMaxRequestBytes()))
                .service(KafkaPixyProto.getDescriptor(), StrictRequestParsing.of(new GrpcApi(proxies)))
                .service(HealthProto.getDescriptor(), StrictRequestParsing.of(new GrpcHealth(readiness)));
        // The original takes requests of at most 1 MiB (checked by MaxMessageSize, with its status code); the
        // transport reads up to twice that, so larger ones are cut off before they are buffered whole.
        GrpcConfig grpcProtocol = GrpcConfig.builder().maxReadBufferSize(2 * limits.grpcMaxRequestBytes()).build();
        Http2Config http2 = Http2Config.builder().initialWindowSize(HTTP2_SIMPLE_WINDOW)
                .maxHeaderListSize(limits.maxHeaderBytes()).build();
        if (grpc) {
            ListenAddress g = ListenAddress.parse("grpc_addr", config.grpcAddr());
            builder.host(g.host()).port(g.port()).addProtocol(grpcProtocol).addProtocol(http2)
                    .addRouting(grpcRouting).connectionOptions(NO_DELAY);
            tls.ifPresent(builder::tls);
            builder.addFeature(GrpcReflectionFeature.builder().enabled(true).addSocket(DEFAULT_SOCKET).build());
        }
        if (rest) {
            String restSocket = grpc ? REST_SOCKET : DEFAULT_SOCKET;
            ListenAddress addr = ListenAddress.parse("tcp_addr", config.tcpAddr());
            HttpRouting.Builder routing = HttpRouting.builder();
            routing.addFilter(new RestRequestMetrics(metrics));
            tokens.ifPresent(t -> routing.addFilter(new RestBearerAuth(t)));
            new RestApi(proxies).register(routing);
            // Go takes any bytes in a query ({@code key=a|b}, raw UTF-8); parameters are parsed like Go's.
            // Helidon 4.5's plain socket does not ask for client certificates (it drops the TLS client-auth
            // setting; ServerTlsTest catches it), so mutual TLS takes the NIO socket and its second buffer.
            boolean useNio = config.tls().clientAuth();
            DirectHandlers transportErrors = DirectHandlers.builder()
                    .addHandler(DirectHandler.EventType.BAD_REQUEST, new RestTransportErrors(limits.maxHeaderBytes()))
                    .build();
            Http1Config http1 = Http1Config.builder().validatePrologue(false)
                    .maxHeadersSize(limits.maxHeaderBytes()).build();
            // HTTP/2 too (h2c, or ALPN with TLS), with the same header limit as the gRPC socket's
            if (grpc) {
                builder.putSocket(REST_SOCKET, socket -> {
                    socket.host(addr.host()).port(addr.port())
                            .routing(routing).addProtocol(http1).addProtocol(http2)
                            .maxPayloadSize(maxPayload(config))
                            .connectionOptions(NO_DELAY).useNio(useNio).directHandlers(transportErrors)
                            .errorHandling(PARSER_MESSAGES);
                    tls.ifPresent(socket::tls);
                });
            } else {
                builder.host(addr.host()).port(addr.port()).routing(routing).addProtocol(http1).addProtocol(http2)
                        .maxPayloadSize(maxPayload(config)).connectionOptions(NO_DELAY).useNio(useNio)
                        .directHandlers(transportErrors).errorHandling(PARSER_MESSAGES);
                tls.ifPresent(builder::tls);
            }
            builder.addFeature(ObserveFeature.builder()
                    .endpoint("/")
                    .sockets(java.util.List.of(restSocket))
                    .observersDiscoverServices(false)
                    .addObserver(MetricsObserver.builder().endpoint("metrics")
                            .meterRegistry(metrics.registry()).build())
                    .addObserver(HealthObserver.builder().endpoint("health").details(true)
                            .useSystemServices(false)
                            .addHealthChecks(HealthChecks.readiness(readiness)).build())
                    .build());
            builder.addFeature(OpenApiFeature.builder().webContext("/openapi").addSocket(restSocket).build());
            if (config.accessLog()) {
                builder.addFeature(AccessLogFeature.builder().loggerName(ACCESS_LOGGER)
                        .sockets(Set.of(restSocket)).build());
            }
        }
        return new PixyServer(builder.build().start(), rest, grpc);
    }

    /**
     * Both sockets' TLS from the original's PEM files; with {@code tls.client_ca_path}, a client certificate from one
     * of those CAs is required (the JDK's PKIX checks: chain, validity dates, key usage).
     */
    private static Optional<Tls> tls(ServerTlsConfig config) {
        if (!config.enabled()) {
            return Optional.empty();
        }
        ServerTls material = ServerTls.load(config.certificatePath(), config.keyPath(), config.clientCaPath());
        TlsConfig.Builder tls = Tls.builder()
                .privateKey(material.key())
                .privateKeyCertChain(material.chain());
        if (!material.clientCas().isEmpty()) {
            tls.trust(material.clientCas()).clientAuth(TlsClientAuth.REQUIRED);
        }
        return Optional.of(tls.build());
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
        if (!rest) {
            return Optional.empty();
        }
        return Optional.of(grpc ? server.port(REST_SOCKET) : server.port());
    }

    /** The bound gRPC port, if the gRPC API is on. */
    public Optional<Integer> grpcPort() {
        return grpc ? Optional.of(server.port()) : Optional.empty();
    }

    @Override
    public void close() {
        server.stop();
    }
}
