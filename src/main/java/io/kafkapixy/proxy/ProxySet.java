package io.kafkapixy.proxy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.consumer.InstanceLimits;
import io.kafkapixy.config.ProxyConfig;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.tracing.Tracing;

/**
 * The clusters of this instance by name, and the default one. The transports resolve every request's cluster here
 * first, before looking at any other parameter (as the original does). Owned and closed by the application.
 */
public final class ProxySet implements AutoCloseable {

    private final Map<String, Proxy> proxies;
    private final Proxy defaultProxy;
    private final Tracing tracing;

    private ProxySet(Map<String, Proxy> proxies, String defaultCluster, Tracing tracing) {
        this.proxies = proxies;
        this.defaultProxy = proxies.get(defaultCluster);
        this.tracing = tracing;
    }

    /**
     * Starts a proxy per configured cluster, in file order, each reporting to {@code metrics.apply(name)}; on failure
     * the ones already started are closed.
     */
    public static ProxySet start(PixyConfig config, Function<String, ClusterMetrics> metrics) {
        return start(config, metrics, Tracing.off());
    }

    /** As {@link #start(PixyConfig, Function)}, the messages produced and consumed traced by {@code tracing}. */
    public static ProxySet start(PixyConfig config, Function<String, ClusterMetrics> metrics, Tracing tracing) {
        Map<String, Proxy> proxies = new LinkedHashMap<>();
        InstanceLimits limits = new InstanceLimits(config.limits().maxParkedRequests(), config.limits().maxGroups(),
                config.limits().maxParkedRestRequests());
        try {
            for (Map.Entry<String, ProxyConfig> e : config.proxies().entrySet()) {
                proxies.put(e.getKey(), Proxy.start(e.getKey(), e.getValue(), metrics.apply(e.getKey()), limits,
                        tracing));
            }
        } catch (RuntimeException e) {
            proxies.values().forEach(Proxy::close);
            throw e;
        }
        return new ProxySet(proxies, config.defaultCluster(), tracing);
    }

    /**
     * Returns the named cluster's proxy; the empty name means the default cluster.
     *
     * @throws PixyException {@code UNKNOWN_CLUSTER} with the original's text
     */
    public Proxy get(String cluster) {
        if (cluster.isEmpty()) {
            return defaultProxy;
        }
        Proxy proxy = proxies.get(cluster);
        if (proxy == null) {
            throw new PixyException(ErrorKind.UNKNOWN_CLUSTER, "proxy `" + cluster + "` does not exist");
        }
        return proxy;
    }

    /** The tracing of the calls served by these proxies (the transports' server spans). */
    public Tracing tracing() {
        return tracing;
    }

    /** The clusters in configuration order. */
    public Collection<Proxy> all() {
        return proxies.values();
    }

    /**
     * Stops every proxy, all at once: each drains on its own clock ({@code consumer.shutdown_timeout},
     * {@code producer.shutdown_timeout}), so clusters do not add up their drains.
     */
    @Override
    public void close() {
        List<Thread> stopping = new ArrayList<>();
        for (Proxy p : proxies.values()) {
            stopping.add(Thread.ofVirtual().name("stop-" + p.name()).start(p::close));
        }
        for (Thread t : stopping) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
