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
    private volatile boolean draining;

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
}
