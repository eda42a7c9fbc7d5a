package io.kafkapixy.ops;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.kafkapixy.proxy.Proxy;
import io.kafkapixy.proxy.ProxySet;

/**
 * Whether this instance should get traffic: not while it drains for shutdown, nor while a configured cluster's
 * brokers cannot be reached. Checked when asked (a health probe, a gRPC health call), every cluster at once, each
 * within {@link #PROBE_TIMEOUT}; nothing runs in the background.
 */
public final class Readiness {

    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

    private final ProxySet proxies;
    private final ExecutorService probes = Executors.newVirtualThreadPerTaskExecutor();
    /** How long a probe's answer serves the meters. */
    static final Duration METER_PROBE_AGE = Duration.ofSeconds(5);
    private volatile boolean draining;
    private volatile Probe lastProbe;

    public Readiness(ProxySet proxies) {
        this.proxies = proxies;
    }

    /** From now on the instance is not ready, for good: it is stopping. */
    public void drain() {
        draining = true;
    }

    public boolean draining() {
        return draining;
    }

    /** Each cluster by name: true when one of its brokers answered within {@link #PROBE_TIMEOUT}. */
    public Map<String, Boolean> clusters() {
        Map<String, CompletableFuture<Boolean>> checks = new LinkedHashMap<>();
        for (Proxy p : proxies.all()) {
            checks.put(p.name(), CompletableFuture.supplyAsync(() -> p.brokersReachable(PROBE_TIMEOUT), probes));
        }
        Map<String, Boolean> reachable = new LinkedHashMap<>();
        checks.forEach((name, check) -> reachable.put(name, check.join()));
        return reachable;
    }

    public boolean ready() {
        return !draining && !clusters().containsValue(false);
    }

    /**
     * As {@link #clusters()}, probing at most once per {@code maxAge}: for meters, which every scrape (and every
     * cluster's series of it) reads.
     */
    Map<String, Boolean> clustersRecently(Duration maxAge) {
        Probe last = lastProbe;
        long now = System.nanoTime();
        if (last == null || now - last.at > maxAge.toNanos()) {
            last = new Probe(now, clusters());
            lastProbe = last;
        }
        return last.reachable;
    }

    private record Probe(long at, Map<String, Boolean> reachable) {
    }

    /**
     * Publishes {@code kafkapixy_ready} (1 ready, 0 not) and {@code kafkapixy_cluster_reachable} per cluster (1 when
     * one of its brokers answered), the brokers probed at most every {@link #METER_PROBE_AGE}.
     */
    public void meter(PixyMetrics metrics) {
        metrics.gauge("kafkapixy.ready", "1 when the instance is ready for traffic (as /health/ready), 0 when not",
                () -> !draining && !clustersRecently(METER_PROBE_AGE).containsValue(false) ? 1 : 0);
        for (Proxy p : proxies.all()) {
            String name = p.name();
            metrics.gauge("kafkapixy.cluster.reachable", "1 when one of the cluster's brokers answered within 2 s",
                    () -> Boolean.FALSE.equals(clustersRecently(METER_PROBE_AGE).get(name)) ? 0 : 1,
                    io.helidon.metrics.api.Tag.create("cluster", name));
        }
    }
}
