package io.kafkapixy.ops;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.helidon.metrics.api.Counter;
import io.helidon.metrics.api.DistributionStatisticsConfig;
import io.helidon.metrics.api.DistributionSummary;
import io.helidon.metrics.api.Gauge;
import io.helidon.metrics.api.Meter;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.metrics.api.MetricsConfig;
import io.helidon.metrics.api.MetricsFactory;
import io.helidon.metrics.api.Tag;
import io.helidon.metrics.api.Timer;
import io.kafkapixy.proxy.ClusterMetrics;

/**
 * The meters of one running Kafka-Pixy, in Helidon's process-wide registry (where the JVM and virtual-thread meters
 * are too), served as Prometheus text at {@code /metrics}. Names follow Prometheus conventions once exported
 * ({@code kafkapixy_produce_messages_total}); labels are bounded: clusters are configured, topics and groups are
 * only those live on this instance (their meters go when they do), API methods and statuses are fixed sets.
 *
 * <p>Thread-safe. Meters are looked up once per label set and cached, so the hot paths only increment.
 * {@link #close()} removes every meter this instance created.
 */
public final class PixyMetrics implements AutoCloseable {

    static final String SCOPE = "application";
    static final Duration[] LATENCY_BUCKETS = {
        Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10),
        Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5),
        Duration.ofSeconds(10), Duration.ofSeconds(30)};

    private final MeterRegistry registry;
    private final Map<Meter.Id, Meter> created = new ConcurrentHashMap<>();
    private final Map<List<String>, Counter> apiRequests = new ConcurrentHashMap<>();

    private PixyMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Over the process-wide registry, with the JDK's virtual-thread scheduler gauges. */
    public static PixyMetrics create() {
        PixyMetrics m = new PixyMetrics(MetricsFactory.getInstance().globalRegistry(
                MetricsConfig.builder().virtualThreadsEnabled(false).build()));
        VirtualThreadGauges.register(m);
        return m;
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** The meters of cluster {@code name}'s producer and consumers. */
    public ClusterMetrics cluster(String name) {
        return new KafkaClusterMetrics(this, name);
    }

    /**
     * Counts a finished API request. {@code method} is a route ({@code POST /topics/{topic}/messages}) or a gRPC
     * method name, {@code status} the HTTP status code or the gRPC status name.
     */
    public void apiRequest(String api, String method, String status) {
        apiRequests(api, method, status).increment();
    }

    /** Counts a call refused to a known client ({@code kafkapixy_auth_refusals_total}). */
    public void authRefusal(String client, String operation) {
        counter("kafkapixy.auth.refusals", "Calls refused to a known client, by client and operation",
                Tag.create("client", client), Tag.create("operation", operation)).increment();
    }

    /** The counter {@link #apiRequest} counts with, for callers that keep it. */
    public Counter apiRequests(String api, String method, String status) {
        return apiRequests.computeIfAbsent(List.of(api, method, status), k -> counter("kafkapixy.api.requests",
                "API requests by method and status", Tag.create("api", api), Tag.create("method", method),
                Tag.create("status", status)));
    }

    /**
     * Streaming gRPC calls of {@code method} open now ({@code kafkapixy_stream_open}); the caller counts them up when
     * one starts and down when it ends.
     */
    public java.util.concurrent.atomic.LongAdder openStreams(String method) {
        java.util.concurrent.atomic.LongAdder open = new java.util.concurrent.atomic.LongAdder();
        gauge("kafkapixy.stream.open", "Streaming gRPC calls open now", open::sum, Tag.create("method", method));
        return open;
    }

    /** The meters of streaming Consume calls; create once per server. */
    public StreamMeters streams() {
        return new StreamMeters(this);
    }

    Counter counter(String name, String description, Tag... tags) {
        return track(registry.getOrCreate(Counter.builder(name).description(description).scope(SCOPE)
                .tags(List.of(tags))));
    }

    Timer timer(String name, String description, Tag... tags) {
        return track(registry.getOrCreate(Timer.builder(name).description(description).scope(SCOPE)
                .baseUnit(Meter.BaseUnits.SECONDS).buckets(LATENCY_BUCKETS)
                // buckets only: Helidon's default client-side percentiles would put quantile series in a histogram
                .percentiles(new double[0])
                .tags(List.of(tags))));
    }

    /** Whole-number observations (attempts), with buckets 2 to 10 and beyond: no quantile series. */
    DistributionSummary summary(String name, String description, Tag... tags) {
        return track(registry.getOrCreate(DistributionSummary.builder(name).description(description).scope(SCOPE)
                .distributionStatisticsConfig(DistributionStatisticsConfig.builder()
                        .buckets(2, 3, 4, 5, 6, 8, 10, 20).percentiles(new double[0]))
                .tags(List.of(tags))));
    }

    <N extends Number> Gauge<N> gauge(String name, String description, Supplier<N> value, Tag... tags) {
        return track(registry.getOrCreate(Gauge.builder(name, value).description(description).scope(SCOPE)
                .tags(List.of(tags))));
    }

    void remove(Meter meter) {
        created.remove(meter.id());
        registry.remove(meter);
    }

    private <M extends Meter> M track(M meter) {
        created.put(meter.id(), meter);
        return meter;
    }

    @Override
    public void close() {
        created.values().forEach(registry::remove);
        created.clear();
        apiRequests.clear();
    }
}
