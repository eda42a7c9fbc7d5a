package io.kafkapixy.config;

import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.Yaml;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigSummaryTest {

    private static final String ID = "kp_test_1";

    private static final String WITH_SECRETS = """
            proxies:
              a:
                kafka:
                  seed_peers: [k1:9092, k2:9092]
                  tls: true
                  ca_certificate_file: /etc/pixy/ca.pem
                  client_certificate_file: /etc/pixy/client.pem
                  client_key_file: /etc/pixy/client.key
                net:
                  sasl: {enable: true, user: alice, password: "s3cr3t-P@ss word"}
            tls:
              certificate_path: /etc/pixy/server.crt
              key_path: /etc/pixy/server.key
            logging:
              - name: json
                severity: debug
                params: {topic: logs, token: tok-12345, api_key: k-67890, client_secret: cs-24680}
            """;

    /** The summary with the line break it ends without, so that every line can be matched whole. */
    private static String render(PixyConfig config) {
        return ConfigSummary.render(config) + "\n";
    }

    @Test
    void secretsAreMaskedWhereverTheyAre() {
        String summary = render(ConfigLoader.fromYaml(WITH_SECRETS, ID));

        assertAll(
                () -> assertThat(summary, not(containsString("s3cr3t"))),
                () -> assertThat(summary, not(containsString("tok-12345"))),
                () -> assertThat(summary, not(containsString("k-67890"))),
                () -> assertThat(summary, not(containsString("cs-24680"))),
                () -> assertThat(summary, containsString("        password: \"******\"\n")),
                () -> assertThat(summary, containsString("      token: \"******\"\n")),
                () -> assertThat(summary, containsString("      api_key: \"******\"\n")),
                () -> assertThat(summary, containsString("      client_secret: \"******\"\n")));
    }

    @Test
    void everythingElseIsShownUnderTheOriginalsKeyNames() {
        String summary = render(ConfigLoader.fromYaml(WITH_SECRETS, ID));

        assertAll(
                () -> assertThat(summary, containsString("grpc_addr: 0.0.0.0:19091\n")),
                () -> assertThat(summary, containsString("default_cluster: a\n")),
                () -> assertThat(summary, containsString("proxies:\n  a:\n    client_id: kp_test_1\n")),
                () -> assertThat(summary, containsString("      seed_peers: [k1:9092, k2:9092]\n")),
                () -> assertThat(summary, containsString("      client_key_file: /etc/pixy/client.key\n")),
                () -> assertThat(summary, containsString("        user: alice\n")),
                () -> assertThat(summary, containsString("      dial_timeout: 30s\n")),
                () -> assertThat(summary, containsString("      ack_timeout: 5m0s\n")),
                () -> assertThat(summary, containsString("      compression: snappy\n")),
                () -> assertThat(summary, containsString("      required_acks: wait_for_all\n")),
                () -> assertThat(summary, containsString("      membership: kafka\n")),
                () -> assertThat(summary, containsString("tls:\n  certificate_path: /etc/pixy/server.crt\n"
                                                         + "  key_path: /etc/pixy/server.key\n")),
                () -> assertThat(summary, containsString("logging:\n  - name: json\n    severity: debug\n"
                                                         + "    params:\n")),
                () -> assertThat(summary, containsString("\n      topic: logs\n")));
    }

    @Test
    void anEmptySecretReadsAsEmptySoAnOperatorSeesItIsUnset() {
        String summary = render(PixyConfig.defaults(ID));

        assertThat(summary, containsString("        password: \"\"\n"));
        assertThat(summary, not(containsString("******")));
    }

    @Test
    void theSummaryIsYamlThatLoadsBackToTheSameConfig() {
        PixyConfig config = ConfigLoader.fromYaml("""
                grpc_addr: ""
                tcp_addr: 127.0.0.1:8080
                default_cluster: b
                proxies:
                  a:
                    producer: {flush_frequency: 1.5s, compression: lz4, partitioner: roundrobin}
                  b:
                    client_id: "123"
                    kafka: {version: 2.3.0, seed_peers: ["k1:9092"]}
                    zoo_keeper: {seed_peers: [z1:2181, z2:2181], chroot: "/pixy #1: \\"b\\"", session_timeout: 1h30m}
                    producer: {flush_frequency: 0s, required_acks: no_response}
                    consumer: {membership: zookeeper, max_retries: 0, ack_timeout: 250ms}
                logging:
                  - name: console
                    severity: ""
                  - {name: json, severity: WARN, params: {tag: "yes", port: "514"}}
                """, ID);

        PixyConfig again = ConfigLoader.fromYaml(ConfigSummary.render(config), "other_id");

        assertEquals(config, again);
    }

    @Test
    void anEmptyLoggingListRendersAsAnEmptyList() {
        PixyConfig defaults = PixyConfig.defaults(ID);
        PixyConfig noLogging = defaults.withLogging(List.of());

        assertThat(render(noLogging), containsString("\nlogging: []\n"));
    }

    /**
     * Each config record against its section of the summary: a field added to a record and forgotten in
     * {@link ConfigSummary} fails here (its value, secret or not, would be missing from the startup log).
     */
    @Test
    @SuppressWarnings("unchecked")
    void everyFieldOfEveryConfigRecordIsRendered() {
        PixyConfig defaults = PixyConfig.defaults(ID);
        ZooKeeperConfig zd = defaults.defaultProxy().zooKeeper();
        // peers given, so that seed_peers shows
        PixyConfig c = defaults.withProxies(java.util.Map.of("default", defaults.defaultProxy().withZooKeeper(
                zd.with(ZooKeeperConfig.SEED_PEERS, zd.seedPeers()))));
        Map<String, Object> root = new Yaml().load(ConfigSummary.render(c));
        Map<String, Object> proxy = (Map<String, Object>) ((Map<String, Object>) root.get("proxies")).get("default");
        Map<String, Object> net = (Map<String, Object>) proxy.get("net");
        Map<String, Object> logging = ((List<Map<String, Object>>) root.get("logging")).getFirst();

        assertAll(
                () -> assertEquals(List.of("grpc_addr", "tcp_addr", "unix_addr", "default_cluster", "proxies", "tls",
                        "logging", "access_log", "inflight_rows", "inflight_messages", "auth", "limits"),
                        List.copyOf(root.keySet())),
                () -> assertRendersEveryField(ProxyConfig.class, proxy),
                () -> assertRendersEveryKey(KafkaConfig.KEYS, (Map<String, Object>) proxy.get("kafka")),
                () -> assertEquals(List.of("dial_timeout", "read_timeout", "write_timeout", "sasl"),
                        List.copyOf(net.keySet())),
                () -> assertRendersEveryKey(SaslConfig.KEYS, (Map<String, Object>) net.get("sasl")),
                () -> assertRendersEveryKey(ZooKeeperConfig.KEYS, (Map<String, Object>) proxy.get("zoo_keeper")),
                () -> assertRendersEveryKey(ProducerConfig.KEYS, (Map<String, Object>) proxy.get("producer")),
                () -> assertRendersEveryKey(ConsumerConfig.KEYS, (Map<String, Object>) proxy.get("consumer")),
                () -> assertRendersEveryKey(ServerTlsConfig.KEYS, (Map<String, Object>) root.get("tls")),
                () -> assertEquals(List.of("name", "severity", "params"), List.copyOf(logging.keySet())));
    }

    private static void assertRendersEveryKey(List<ConfigKey<?>> keys, Map<String, Object> section) {
        assertEquals(keys.stream().map(ConfigKey::name).toList(), List.copyOf(section.keySet()));
    }

    private static void assertRendersEveryField(Class<? extends Record> type, Map<String, Object> section,
                                                String... notKeys) {
        List<String> fields = Stream.of(type.getRecordComponents()).map(RecordComponent::getName)
                .filter(name -> !List.of(notKeys).contains(name)).toList();
        assertEquals(fields.size(), section.size(),
                type.getSimpleName() + " has fields " + fields + " but the summary shows " + section.keySet());
    }

    @ParameterizedTest
    @ValueSource(strings = {"password", "PASSWORD", "sasl_password", "passwd", "secret", "client_secret", "token",
                            "access_token", "credentials", "jaas_config", "key", "api_key", "private_key"})
    void keysThatNameSecretsAreMasked(String key) {
        assertTrue(ConfigSummary.isSecret(key));
    }

    @ParameterizedTest
    @ValueSource(strings = {"key_path", "client_key_file", "certificate_path", "user", "seed_peers", "topic",
                            "client_id", "tls"})
    void keysThatNamePathsOrPlainSettingsAreShown(String key) {
        assertFalse(ConfigSummary.isSecret(key));
    }

    @Test
    void aSecretIsMaskedWholeWhateverItContains() {
        PixyConfig defaults = PixyConfig.defaults(ID);
        PixyConfig config = defaults.withLogging(
                List.of(LoggingConfig.sink("json").withSeverity("info")
                        .withParams(Map.of("secret", "{\"nested\": \"x\"}"))));

        String summary = render(config);

        assertThat(summary, containsString("      secret: \"******\"\n"));
        assertThat(summary, not(containsString("nested")));
    }
}
