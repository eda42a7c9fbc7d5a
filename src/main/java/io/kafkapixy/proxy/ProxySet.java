package io.kafkapixy.proxy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.config.ProxyConfig;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;

/**
 * The clusters of this instance by name, and the default one. The transports resolve every request's cluster here
 * first, before looking at any other parameter (as the original does). Owned and closed by the application.
 */
public final class ProxySet implements AutoCloseable {

    private final Map<String, Proxy> proxies;
    private final Proxy defaultProxy;

    private ProxySet(Map<String, Proxy> proxies, String defaultCluster) {
        this.proxies = proxies;
        this.defaultProxy = proxies.get(defaultCluster);
    }

    /** Starts a proxy per configured cluster, in file order; on failure the ones already started are closed. */
    public static ProxySet start(PixyConfig config) {
        Map<String, Proxy> proxies = new LinkedHashMap<>();
        try {
            for (Map.Entry<String, ProxyConfig> e : config.proxies().entrySet()) {
                proxies.put(e.getKey(), Proxy.start(e.getKey(), e.getValue()));
            }
        } catch (RuntimeException e) {
            proxies.values().forEach(Proxy::close);
            throw e;
        }
        return new ProxySet(proxies, config.defaultCluster());
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

    /** Stops every proxy, in reverse start order. */
    @Override
    public void close() {
        List<Proxy> reversed = new ArrayList<>(proxies.values());
        java.util.Collections.reverse(reversed);
        reversed.forEach(Proxy::close);
    }
}
