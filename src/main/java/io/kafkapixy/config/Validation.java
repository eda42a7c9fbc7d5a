package io.kafkapixy.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The one place where configuration values are checked. Texts and order follow the original's {@code validate()};
 * checks the original left to sarama's {@code Config.Validate()} at client creation come after them, named by our
 * keys. Only the first violation is reported, as the original does.
 */
final class Validation {

    static final Pattern CLIENT_ID = Pattern.compile("[a-zA-Z0-9._-]+");

    private static final String PREFIX = "invalid config parameter: ";

    private Validation() {
    }

    /**
     * @param decodingProblems per cluster, violations found while decoding values the records cannot hold (an
     *                         unknown partitioner or membership); reported before that cluster's other violations
     * @throws ConfigException for the first violation
     */
    static void validate(PixyConfig config, Map<String, List<String>> decodingProblems) {
        if (config.proxies().isEmpty()) {
            throw new ConfigException(PREFIX + "at least on proxy must be configured"); // sic, the original's text
        }
        if (config.grpcAddr().isEmpty() && config.tcpAddr().isEmpty() && config.unixAddr().isEmpty()) {
            throw new ConfigException(PREFIX + "at least one API server should be configured");
        }
        if (!config.proxies().containsKey(config.defaultCluster())) {
            throw new ConfigException(PREFIX + "default_cluster \"" + config.defaultCluster()
                                      + "\" does not name a configured proxy, want one of " + config.proxies().keySet());
        }
        for (Map.Entry<String, ProxyConfig> e : config.proxies().entrySet()) {
            List<String> problems = new ArrayList<>(decodingProblems.getOrDefault(e.getKey(), List.of()));
            problems.addAll(problems(e.getValue()));
            if (!problems.isEmpty()) {
                throw new ConfigException(PREFIX + "invalid config, cluster=" + e.getKey() + ": " + problems.getFirst());
            }
        }
        List<String> problems = new ArrayList<>();
        problems.addAll(config.limits().settings().violations());
        problems.addAll(config.auth().problems());
        ServerTlsConfig tls = config.tls();
        check(problems, tls.clientCaPath().isEmpty() || tls.enabled(),
                "tls.client_ca_path needs tls.certificate_path and tls.key_path");
        if (!problems.isEmpty()) {
            throw new ConfigException(PREFIX + problems.getFirst());
        }
    }

    /** Every violation in one proxy's config, in reporting order, without the cluster prefix. */
    static List<String> problems(ProxyConfig p) {
        List<String> out = new ArrayList<>();
        ProducerConfig prod = p.producer();
        bounds(out, prod.settings(), ProducerConfig.CHANNEL_BUFFER_SIZE, ProducerConfig.FLUSH_BYTES,
                ProducerConfig.FLUSH_FREQUENCY, ProducerConfig.RETRY_BACKOFF, ProducerConfig.RETRY_MAX,
                ProducerConfig.SHUTDOWN_TIMEOUT, ProducerConfig.TIMEOUT);

        ConsumerConfig cons = p.consumer();
        // the original's order of its checks, each key's bound defined with the key
        bounds(out, cons.settings(), ConsumerConfig.ACK_TIMEOUT, ConsumerConfig.CHANNEL_BUFFER_SIZE,
                ConsumerConfig.FETCH_MAX_BYTES, ConsumerConfig.LONG_POLLING_TIMEOUT,
                ConsumerConfig.MAX_PENDING_MESSAGES, ConsumerConfig.MAX_RETRIES, ConsumerConfig.OFFSETS_COMMIT_INTERVAL,
                ConsumerConfig.SUBSCRIPTION_TIMEOUT, ConsumerConfig.RETRY_BACKOFF, ConsumerConfig.SHUTDOWN_TIMEOUT,
                ConsumerConfig.SESSION_TIMEOUT);

        // The original failed on these only when creating its Kafka client (sarama's Config.Validate).
        check(out, CLIENT_ID.matcher(p.clientId()).matches(),
                "client_id must match ^[a-zA-Z0-9._-]+$, got \"" + p.clientId() + "\"");
        bounds(out, p.kafka().settings(), KafkaConfig.SEED_PEERS);
        bounds(out, prod.settings(), ProducerConfig.MAX_MESSAGE_BYTES);
        bounds(out, p.net().settings(), NetConfig.DIAL_TIMEOUT, NetConfig.READ_TIMEOUT, NetConfig.WRITE_TIMEOUT);
        SaslConfig sasl = p.net().sasl();
        check(out, !sasl.enable() || !sasl.user().isEmpty(),
                "net.sasl.user must not be empty when net.sasl.enable is true");
        check(out, !sasl.enable() || !sasl.password().isEmpty(),
                "net.sasl.password must not be empty when net.sasl.enable is true");
        check(out, SaslConfig.MECHANISMS.contains(sasl.mechanism()),
                "net.sasl.mechanism must be one of " + String.join(", ", SaslConfig.MECHANISMS) + ", got \""
                + sasl.mechanism() + "\"");
        bounds(out, cons.settings(), ConsumerConfig.FETCH_MAX_WAIT, ConsumerConfig.SHARE_CONSUMERS,
                ConsumerConfig.DEAD_LETTER_TOPIC);

        bounds(out, p.zooKeeper().settings(), ZooKeeperConfig.SESSION_TIMEOUT);
        check(out, cons.membership() != ConsumerConfig.Membership.ZOOKEEPER || !p.zooKeeper().seedPeers().isEmpty(),
                "zoo_keeper.seed_peers must not be empty when consumer.membership is zookeeper");
        return out;
    }

    /** The bound violations of these keys, in this order. */
    private static void bounds(List<String> out, Settings values, ConfigKey<?>... keys) {
        for (ConfigKey<?> key : keys) {
            String problem = violation(values, key);
            if (problem != null) {
                out.add(problem);
            }
        }
    }

    private static <T> String violation(Settings values, ConfigKey<T> key) {
        return key.violation(values.get(key));
    }

    private static void check(List<String> out, boolean ok, String problem) {
        if (!ok) {
            out.add(problem);
        }
    }
}
