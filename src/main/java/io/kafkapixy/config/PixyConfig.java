package io.kafkapixy.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.kafkapixy.config.ConfigKey.Bound;
import io.kafkapixy.config.ConfigKey.Type;

/**
 * The whole application configuration: the original's YAML schema as a tree of sections. The top-level keys are
 * defined once below; {@code proxies} keeps file order; {@link #defaultCluster()} is the resolved default cluster
 * name (the {@code default_cluster} key, else the first proxy). An empty address disables that server. New in this
 * project: {@code access_log}, {@code auth} and {@code limits}. Instances are produced validated by
 * {@link ConfigLoader}; tests may also build them from {@link #of}.
 */
public final class PixyConfig {

    public static final ConfigKey<String> GRPC_ADDR = new ConfigKey<>(
            "grpc_addr", Type.STRING, "0.0.0.0:19091",
            Bound.<String>none(), "-grpcAddr",
            "where the gRPC API listens; empty: no gRPC API");
    public static final ConfigKey<String> TCP_ADDR = new ConfigKey<>(
            "tcp_addr", Type.STRING, "0.0.0.0:19092",
            Bound.<String>none(), "-tcpAddr",
            "where the REST API listens; empty: no REST API");
    public static final ConfigKey<String> UNIX_ADDR = new ConfigKey<>(
            "unix_addr", Type.STRING, "",
            Bound.<String>none(), "-unixAddr",
            "accepted and ignored: Helidon has no Unix-socket listener");
    public static final ConfigKey<String> DEFAULT_CLUSTER = ConfigKey.of(
            "default_cluster", Type.STRING, "",
            Bound.<String>none(),
            "the cluster of calls that name none; when left out, the first entry of `proxies`");
    public static final ConfigKey<Boolean> ACCESS_LOG = new ConfigKey<>(
            "access_log", Type.BOOL, false,
            Bound.<Boolean>none(), "-accessLog",
            "one log line per REST and gRPC request (see Operations)");

    public static final ConfigKey<Integer> INFLIGHT_ROWS = ConfigKey.of(
            "inflight_rows", Type.INT, 1000,
            Bound.atLeast(1),
            "at most this many rows (partitions, messages, streams) in one answer of `/inflight` (see Operations)");
    public static final ConfigKey<Boolean> INFLIGHT_MESSAGES = ConfigKey.of(
            "inflight_messages", Type.BOOL, false,
            Bound.<Boolean>none(),
            "`/inflight` and its page show the keys and values of the messages out (they may be private)");

    /** The top-level keys, in the order the config summary and the README list them. */
    public static final List<ConfigKey<?>> KEYS = List.of(GRPC_ADDR, TCP_ADDR, UNIX_ADDR, DEFAULT_CLUSTER,
            ACCESS_LOG, INFLIGHT_ROWS, INFLIGHT_MESSAGES);

    private final Settings values;
    private final Map<String, ProxyConfig> proxies;
    private final ServerTlsConfig tls;
    private final List<LoggingConfig> logging;
    private final AuthConfig auth;
    private final LimitsConfig limits;

    private PixyConfig(Settings values, Map<String, ProxyConfig> proxies, ServerTlsConfig tls,
                       List<LoggingConfig> logging, AuthConfig auth, LimitsConfig limits) {
        this.values = values;
        this.proxies = Collections.unmodifiableMap(new LinkedHashMap<>(proxies));
        this.tls = tls;
        this.logging = List.copyOf(logging);
        this.auth = auth;
        this.limits = limits;
    }

    /**
     * These proxies, {@code defaultCluster} the default one, and every other setting at its default (the default
     * console logging, no TLS, no tokens, default limits).
     */
    public static PixyConfig of(Map<String, ProxyConfig> proxies, String defaultCluster) {
        return new PixyConfig(Settings.defaults(KEYS).with(DEFAULT_CLUSTER, defaultCluster), proxies,
                ServerTlsConfig.NONE, List.of(LoggingConfig.DEFAULT), AuthConfig.NONE, LimitsConfig.DEFAULT);
    }

    /** The configuration used without {@code -config}: one proxy named {@code default} with all defaults. */
    public static PixyConfig defaults(String clientId) {
        return of(Map.of("default", ProxyConfig.defaults(clientId)), "default");
    }

    /** The same with {@code key} set to {@code value}. */
    public <T> PixyConfig with(ConfigKey<T> key, T value) {
        return new PixyConfig(values.with(key, value), proxies, tls, logging, auth, limits);
    }

    /** The same with the top-level keys the YAML document names read from it. */
    PixyConfig read(YamlSection root) {
        return new PixyConfig(values.read(root), proxies, tls, logging, auth, limits);
    }

    Settings settings() {
        return values;
    }

    /** The same with these proxies (the default cluster's name unchanged). */
    public PixyConfig withProxies(Map<String, ProxyConfig> proxies) {
        return new PixyConfig(values, proxies, tls, logging, auth, limits);
    }

    /** The same with this server TLS. */
    public PixyConfig withTls(ServerTlsConfig tls) {
        return new PixyConfig(values, proxies, tls, logging, auth, limits);
    }

    /** The same with these logging sinks. */
    public PixyConfig withLogging(List<LoggingConfig> logging) {
        return new PixyConfig(values, proxies, tls, logging, auth, limits);
    }

    /** The same with these bearer tokens. */
    public PixyConfig withAuth(AuthConfig auth) {
        return new PixyConfig(values, proxies, tls, logging, auth, limits);
    }

    /** The same with these limits. */
    public PixyConfig withLimits(LimitsConfig limits) {
        return new PixyConfig(values, proxies, tls, logging, auth, limits);
    }

    /** The same with the access log of both APIs on or off. */
    public PixyConfig withAccessLog(boolean on) {
        return with(ACCESS_LOG, on);
    }

    public String grpcAddr() {
        return values.get(GRPC_ADDR);
    }

    public String tcpAddr() {
        return values.get(TCP_ADDR);
    }

    public String unixAddr() {
        return values.get(UNIX_ADDR);
    }

    public String defaultCluster() {
        return values.get(DEFAULT_CLUSTER);
    }

    public int inflightRows() {
        return values.get(INFLIGHT_ROWS);
    }

    public boolean inflightMessages() {
        return values.get(INFLIGHT_MESSAGES);
    }

    public boolean accessLog() {
        return values.get(ACCESS_LOG);
    }

    public Map<String, ProxyConfig> proxies() {
        return proxies;
    }

    public ServerTlsConfig tls() {
        return tls;
    }

    public List<LoggingConfig> logging() {
        return logging;
    }

    public AuthConfig auth() {
        return auth;
    }

    public LimitsConfig limits() {
        return limits;
    }

    public ProxyConfig defaultProxy() {
        return proxies.get(defaultCluster());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PixyConfig c && values.equals(c.values) && proxies.equals(c.proxies) && tls.equals(c.tls)
               && logging.equals(c.logging) && auth.equals(c.auth) && limits.equals(c.limits);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(values, proxies, tls, logging, auth, limits);
    }

    @Override
    public String toString() {
        return "PixyConfig" + values + " proxies=" + proxies + " tls=" + tls + " logging=" + logging + " auth=" + auth
               + " limits=" + limits;
    }
}
