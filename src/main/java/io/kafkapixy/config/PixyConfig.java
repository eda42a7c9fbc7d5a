package io.kafkapixy.config;

import java.util.List;
import java.util.Map;

/**
 * The whole application configuration: the original's YAML schema as a record tree.
 *
 * <p>{@code proxies} keeps file order; {@link #defaultCluster()} is the resolved default cluster name (the
 * {@code default_cluster} key, else the first proxy). An empty address disables that server. {@code accessLog} is
 * new in this project: one log line per API request, and so are {@code auth} and {@code limits}. Instances are
 * produced validated by {@link ConfigLoader}; tests may also build them directly.
 */
public record PixyConfig(String grpcAddr,
                         String tcpAddr,
                         String unixAddr,
                         String defaultCluster,
                         Map<String, ProxyConfig> proxies,
                         ServerTlsConfig tls,
                         List<LoggingConfig> logging,
                         boolean accessLog,
                         AuthConfig auth,
                         LimitsConfig limits) {

    public static final String DEFAULT_GRPC_ADDR = "0.0.0.0:19091";
    public static final String DEFAULT_TCP_ADDR = "0.0.0.0:19092";

    public PixyConfig {
        proxies = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(proxies));
        logging = List.copyOf(logging);
    }

    /** Without bearer tokens, default limits. */
    public PixyConfig(String grpcAddr, String tcpAddr, String unixAddr, String defaultCluster,
                      Map<String, ProxyConfig> proxies, ServerTlsConfig tls, List<LoggingConfig> logging,
                      boolean accessLog) {
        this(grpcAddr, tcpAddr, unixAddr, defaultCluster, proxies, tls, logging, accessLog, AuthConfig.NONE,
                LimitsConfig.DEFAULT);
    }

    /** Without the access log. */
    public PixyConfig(String grpcAddr, String tcpAddr, String unixAddr, String defaultCluster,
                      Map<String, ProxyConfig> proxies, ServerTlsConfig tls, List<LoggingConfig> logging) {
        this(grpcAddr, tcpAddr, unixAddr, defaultCluster, proxies, tls, logging, false);
    }

    /** The same with these proxies (the default cluster's name unchanged). */
    public PixyConfig withProxies(Map<String, ProxyConfig> proxies) {
        return new PixyConfig(grpcAddr, tcpAddr, unixAddr, defaultCluster, proxies, tls, logging, accessLog, auth,
                limits);
    }

    /** The same with this server TLS. */
    public PixyConfig withTls(ServerTlsConfig tls) {
        return new PixyConfig(grpcAddr, tcpAddr, unixAddr, defaultCluster, proxies, tls, logging, accessLog, auth,
                limits);
    }

    /** The same with these bearer tokens. */
    public PixyConfig withAuth(AuthConfig auth) {
        return new PixyConfig(grpcAddr, tcpAddr, unixAddr, defaultCluster, proxies, tls, logging, accessLog, auth,
                limits);
    }

    /** The same with these limits. */
    public PixyConfig withLimits(LimitsConfig limits) {
        return new PixyConfig(grpcAddr, tcpAddr, unixAddr, defaultCluster, proxies, tls, logging, accessLog, auth,
                limits);
    }

    /** The same with the access log of both APIs on or off ({@code access_log}, new in this project). */
    public PixyConfig withAccessLog(boolean on) {
        return new PixyConfig(grpcAddr, tcpAddr, unixAddr, defaultCluster, proxies, tls, logging, on, auth, limits);
    }

    /** The configuration used without {@code -config}: one proxy named {@code default} with all defaults. */
    public static PixyConfig defaults(String clientId) {
        return new PixyConfig(DEFAULT_GRPC_ADDR, DEFAULT_TCP_ADDR, "", "default",
                Map.of("default", ProxyConfig.defaults(clientId)), ServerTlsConfig.NONE,
                List.of(LoggingConfig.DEFAULT));
    }

    public ProxyConfig defaultProxy() {
        return proxies.get(defaultCluster);
    }
}
