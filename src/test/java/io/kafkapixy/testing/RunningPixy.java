package io.kafkapixy.testing;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.kafkapixy.Application;
import io.kafkapixy.config.KafkaConfig;
import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.config.ProxyConfig;
import mailgun.kafkapixy.KafkaPixyGrpc;

/**
 * A Kafka-Pixy started in the test JVM exactly as {@code Main} starts it, on free ports, plus clients for it: a JDK
 * HTTP client and a gRPC blocking stub generated from the original proto.
 */
public final class RunningPixy implements AutoCloseable {

    private final Application app;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    private ManagedChannel channel;

    private RunningPixy(Application app) {
        this.app = app;
    }

    /** Tracing off, whatever OTEL_* settings the machine running the tests has: what a test checks stays as it says. */
    public static RunningPixy start(PixyConfig config) {
        return start(config, io.kafkapixy.tracing.Tracing.off());
    }

    /** With tracing as {@code tracing} says (closed with this), whatever the environment's OTEL_* settings. */
    public static RunningPixy start(PixyConfig config, io.kafkapixy.tracing.Tracing tracing) {
        return new RunningPixy(Application.start(config, tracing));
    }

    /** One cluster named {@code default} on the shared test broker, everything else as the original's defaults. */
    public static PixyConfig config(String bootstrap) {
        return config(Map.of("default", bootstrap));
    }

    /** Clusters by name (first is the default) with all defaults except the brokers. */
    public static PixyConfig config(Map<String, String> clusters) {
        Map<String, ProxyConfig> proxies = new LinkedHashMap<>();
        clusters.forEach((name, bootstrap) -> proxies.put(name, proxy(bootstrap)));
        return local(PixyConfig.of(proxies, proxies.keySet().iterator().next()));
    }

    /** One cluster named {@code default} with these consumer settings and its own client id. */
    public static PixyConfig config(String bootstrap, String clientId, ConsumerSettingsBuilder consumer) {
        ProxyConfig p = proxy(bootstrap);
        p = new ProxyConfig(clientId, p.kafka(), p.net(), p.zooKeeper(), p.producer(), consumer.build());
        return local(PixyConfig.of(Map.of("default", p), "default"));
    }

    /** Both APIs on ports of their own choosing, on the loopback interface. */
    private static PixyConfig local(PixyConfig c) {
        return c.with(PixyConfig.GRPC_ADDR, "127.0.0.1:0").with(PixyConfig.TCP_ADDR, "127.0.0.1:0");
    }

    /** Like {@link #config(String, String, ConsumerSettingsBuilder)}, with ZooKeeper at {@code zooKeeper}. */
    public static PixyConfig config(String bootstrap, String clientId, ConsumerSettingsBuilder consumer,
                                    io.kafkapixy.config.ZooKeeperConfig zooKeeper) {
        PixyConfig c = config(bootstrap, clientId, consumer);
        ProxyConfig p = c.defaultProxy().withZooKeeper(zooKeeper);
        return c.withProxies(Map.of("default", p));
    }

    public static ProxyConfig proxy(String bootstrap) {
        ProxyConfig p = ProxyConfig.defaults("kp_test_" + ProcessHandle.current().pid());
        return p.withKafka(p.kafka().with(KafkaConfig.SEED_PEERS, List.of(bootstrap)));
    }

    public Application app() {
        return app;
    }

    public URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + app.server().restPort().orElseThrow() + pathAndQuery);
    }

    public int restPort() {
        return app.server().restPort().orElseThrow();
    }

    public HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return http.send(request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError("HTTP request failed: " + e, e);
        }
    }

    public HttpResponse<String> post(String pathAndQuery, String contentType, String body) {
        HttpRequest.Builder rq = HttpRequest.newBuilder(uri(pathAndQuery))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            rq.header("Content-Type", contentType);
        }
        return send(rq);
    }

    public HttpResponse<String> get(String pathAndQuery) {
        return send(HttpRequest.newBuilder(uri(pathAndQuery)).GET());
    }

    /** GETs a consume path until it answers a message, each other answer a long polling timeout; at most 60 s. */
    public jakarta.json.JsonObject takeMessage(String pathAndQuery) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            HttpResponse<String> rs = get(pathAndQuery);
            if (rs.statusCode() == 200) {
                return JsonBodies.object(rs.body());
            }
            if (rs.statusCode() != 408) {
                throw new AssertionError("expected a message or 408, got " + rs.statusCode() + ": " + rs.body());
            }
        }
        throw new AssertionError("no message in 60 s");
    }

    /**
     * Auto-ack consumes {@code path} round-robin over the instances until {@code n} distinct values arrived or the
     * time is up; records which partitions each instance served into {@code served}.
     */
    public static java.util.Set<String> consumeAll(List<RunningPixy> instances, String path, int n, Duration timeout,
                                                   Map<RunningPixy, java.util.Set<Integer>> served) {
        java.util.Set<String> consumed = new java.util.HashSet<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (consumed.size() < n && System.nanoTime() < deadline) {
            for (RunningPixy p : instances) {
                HttpResponse<String> rs = p.get(path);
                if (rs.statusCode() == 200) {
                    var m = JsonBodies.object(rs.body());
                    consumed.add(new String(java.util.Base64.getDecoder().decode(m.getString("value")),
                            java.nio.charset.StandardCharsets.UTF_8));
                    served.computeIfAbsent(p, k -> new java.util.TreeSet<>()).add(m.getInt("partition"));
                }
            }
        }
        return consumed;
    }

    public KafkaPixyGrpc.KafkaPixyBlockingStub grpc() {
        return KafkaPixyGrpc.newBlockingStub(channel()).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    /** A plaintext channel to the gRPC API, for any service's stubs; closed with this. */
    public synchronized ManagedChannel channel() {
        if (channel == null) {
            channel = ManagedChannelBuilder.forAddress("127.0.0.1", app.server().grpcPort().orElseThrow())
                    .usePlaintext().build();
        }
        return channel;
    }

    @Override
    public void close() {
        if (channel != null) {
            channel.shutdownNow();
        }
        app.close();
    }
}
