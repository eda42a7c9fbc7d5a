package io.kafkapixy.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.kafkapixy.config.Durations;
import io.kafkapixy.embedded.EmbeddedKafka;
import io.kafkapixy.testing.GrpcHeaders;
import io.kafkapixy.testing.PixyProcess;

/**
 * The server under test and its Kafka cluster: where to reach them and, in the default mode, their lifecycle (an
 * embedded broker in this JVM, the packaged proxy as a child process). In external mode nothing is started or
 * stopped. The benchmark's main method owns it; a shutdown hook stops what it started on Ctrl-C too.
 */
final class Target implements AutoCloseable {

    private final Options.HostPort grpc;
    private final Options.HostPort http;
    private final String bootstrap;
    private final Optional<String> authorization;
    private final String auth;
    private final Optional<EmbeddedKafka> broker;
    private final Optional<ChildProxy> proxy;
    private final Thread shutdownHook;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** @param auth what the report says of the server's credentials */
    private Target(Options.HostPort grpc, Options.HostPort http, String bootstrap, Optional<String> token, String auth,
                   Optional<EmbeddedKafka> broker, Optional<ChildProxy> proxy) {
        this.auth = auth;
        this.grpc = grpc;
        this.http = http;
        this.bootstrap = bootstrap;
        this.authorization = token.map(t -> "Bearer " + t);
        this.broker = broker;
        this.proxy = proxy;
        this.shutdownHook = new Thread(this::stop, "bench-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    static Target start(Options options, Path logDir) throws IOException, InterruptedException {
        if (options.external()) {
            return new Target(options.grpc().orElseThrow(), options.http().orElseThrow(),
                    options.kafka().orElseThrow().toString(), options.token(),
                    options.token().isPresent() ? "bearer token" : "none", Optional.empty(), Optional.empty());
        }
        EmbeddedKafka kafka = EmbeddedKafka.start();
        try {
            int[] ports = PixyProcess.freePorts(2);
            int grpcPort = ports[0];
            int restPort = ports[1];
            Path config = logDir.resolve("proxy.yaml");
            Optional<String> token = options.token();
            String auth = "";
            if (options.clients() > 0) {
                Path clients = logDir.resolve("clients.yaml").toAbsolutePath();
                token = Optional.of(BenchClients.write(clients, options.clients()));
                auth = "auth:\n  clients_file: " + clients + "\n";
            }
            Files.writeString(config, config(options, kafka.bootstrapServers(), grpcPort, restPort) + auth);
            ChildProxy child = ChildProxy.start(options.jar(), config, restPort, logDir.resolve("proxy.log"));
            return new Target(new Options.HostPort("127.0.0.1", grpcPort), new Options.HostPort("127.0.0.1", restPort),
                    kafka.bootstrapServers(), token, options.clients() > 0 ? options.clients() + " named clients of "
                    + BenchClients.RULES + " rules each" : token.isPresent() ? "bearer token" : "none",
                    Optional.of(kafka), Optional.of(child));
        } catch (IOException | InterruptedException | RuntimeException e) {
            kafka.close();
            throw e;
        }
    }

    /**
     * The original's YAML. Only what the benchmark needs differs from the defaults: the long poll it checks and short
     * shutdown timeouts so the run ends quickly (they play no part while measuring). {@code BENCH_PROXY_YAML} adds
     * top-level sections (e.g. {@code limits: {max_parked_rest_requests: 3000}}) to try other settings.
     */
    private static String config(Options options, String bootstrap, int grpcPort, int restPort) {
        return """
                grpc_addr: 127.0.0.1:%d
                tcp_addr: 127.0.0.1:%d
                proxies:
                  default:
                    kafka:
                      seed_peers: [%s]
                    producer:
                      shutdown_timeout: 10s
                    consumer:
                      long_polling_timeout: %s
                      shutdown_timeout: 2s
                      share_groups: [%s]
                """.formatted(grpcPort, restPort, bootstrap, Durations.format(options.longPoll()),
                        String.join(", ", ShareScenario.GROUPS))
               + System.getenv().getOrDefault("BENCH_PROXY_YAML", "") + "\n";
    }

    boolean ownProxy() {
        return proxy.isPresent();
    }

    String bootstrap() {
        return bootstrap;
    }

    /**
     * A new plaintext channel (one HTTP/2 connection) to the gRPC API, its calls sending the bench's credential if it
     * has one; the caller shuts it down.
     */
    ManagedChannel newChannel() {
        ManagedChannelBuilder<?> channel = ManagedChannelBuilder.forAddress(grpc.host(), grpc.port()).usePlaintext()
                .maxInboundMessageSize(4 << 20);
        authorization.ifPresent(a -> channel.intercept(GrpcHeaders.header("authorization", a)));
        return channel.build();
    }

    /** A request to the REST API, with the bench's credential if it has one. */
    HttpRequest.Builder request(String pathAndQuery) {
        HttpRequest.Builder rq = HttpRequest.newBuilder(uri(pathAndQuery));
        authorization.ifPresent(a -> rq.header("Authorization", a));
        return rq;
    }

    URI uri(String pathAndQuery) {
        return URI.create("http://" + http + pathAndQuery);
    }

    OptionalLong proxyPid() {
        return proxy.map(p -> OptionalLong.of(p.pid())).orElse(OptionalLong.empty());
    }

    /** The cluster for the capacity scenario's parked requests: empty means the server's default cluster. */
    Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("mode", ownProxy() ? "embedded broker + child proxy" : "external");
        d.put("grpc", grpc.toString());
        d.put("http", http.toString());
        d.put("kafka", bootstrap);
        d.put("auth", auth);
        proxy.ifPresent(p -> d.put("proxyCommand", p.command()));
        d.put("benchJvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        d.put("cpus", Runtime.getRuntime().availableProcessors());
        return d;
    }

    private void stop() {
        if (closed.compareAndSet(false, true)) {
            proxy.ifPresent(ChildProxy::close);
            broker.ifPresent(EmbeddedKafka::close);
        }
    }

    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook is running or ran
        }
    }
}
