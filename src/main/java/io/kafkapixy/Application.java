package io.kafkapixy;

import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.proxy.ProxySet;
import io.kafkapixy.server.PixyServer;

/**
 * A running Kafka-Pixy: the clusters ({@link ProxySet}) and the API servers in front of them.
 */
public final class Application implements AutoCloseable {

    private final ProxySet proxies;
    private final PixyServer server;

    private Application(ProxySet proxies, PixyServer server) {
        this.proxies = proxies;
        this.server = server;
    }

    public static Application start(PixyConfig config) {
        ProxySet proxies = ProxySet.start(config);
        try {
            return new Application(proxies, PixyServer.start(config, proxies));
        } catch (RuntimeException e) {
            proxies.close();
            throw e;
        }
    }

    public ProxySet proxies() {
        return proxies;
    }

    public PixyServer server() {
        return server;
    }

    /**
     * Stops the proxies while the servers still run (parked consume requests are answered 503, acks still reach
     * the consumers until their offsets are committed, accepted messages are delivered), then the servers.
     */
    @Override
    public void close() {
        try {
            proxies.close();
        } finally {
            server.close();
        }
    }
}
