package io.kafkapixy;

import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.ops.PixyMetrics;
import io.kafkapixy.ops.Readiness;
import io.kafkapixy.proxy.ProxySet;
import io.kafkapixy.tracing.Tracing;
import io.kafkapixy.server.PixyServer;

/**
 * A running Kafka-Pixy: the clusters ({@link ProxySet}), the API servers in front of them, and what operators
 * watch: its metrics and its readiness.
 */
public final class Application implements AutoCloseable {

    private final ProxySet proxies;
    private final PixyServer server;
    private final PixyMetrics metrics;
    private final Readiness readiness;
    private final Tracing tracing;

    private Application(ProxySet proxies, PixyServer server, PixyMetrics metrics, Readiness readiness,
                        Tracing tracing) {
        this.tracing = tracing;
        this.proxies = proxies;
        this.server = server;
        this.metrics = metrics;
        this.readiness = readiness;
    }

    /** Tracing as OpenTelemetry's {@code OTEL_*} settings in the environment and system properties say. */
    public static Application start(PixyConfig config) {
        return start(config, Tracing.configure(System.getenv(), System.getProperties()));
    }

    public static Application start(PixyConfig config, Tracing tracing) {
        PixyMetrics metrics = PixyMetrics.create();
        ProxySet proxies;
        try {
            proxies = ProxySet.start(config, metrics::cluster, tracing);
        } catch (RuntimeException e) {
            metrics.close();
            tracing.close();
            throw e;
        }
        try {
            Readiness readiness = new Readiness(proxies);
            readiness.meter(metrics);
            return new Application(proxies, PixyServer.start(config, proxies, metrics, readiness), metrics,
                    readiness, tracing);
        } catch (RuntimeException e) {
            proxies.close();
            metrics.close();
            tracing.close();
            throw e;
        }
    }

    public Readiness readiness() {
        return readiness;
    }

    public ProxySet proxies() {
        return proxies;
    }

    public PixyServer server() {
        return server;
    }

    /**
     * Graceful shutdown that loses nothing: readiness goes false first; then the proxies stop while the servers still
     * run, so parked consume requests are answered 503, new ones too, acks still reach the consumers while they wait
     * for them ({@code consumer.shutdown_timeout}, at most {@code ack_timeout}) and commit, and accepted async messages
     * are delivered ({@code producer.shutdown_timeout}); then the servers stop.
     */
    @Override
    public void close() {
        readiness.drain();
        try {
            proxies.close();
        } finally {
            try {
                server.close();
            } finally {
                metrics.close();
                // after the producers: the spans of the messages they delivered while draining are exported too
                tracing.close();
            }
        }
    }
}
