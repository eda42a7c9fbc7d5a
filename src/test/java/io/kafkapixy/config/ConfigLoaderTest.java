package io.kafkapixy.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigLoaderTest {

    private static final String ID = "kp_test_1";

    /** Every key of the original's YAML schema written out with the original's default value. */
    private static final String ORIGINAL_DEFAULTS_SPELLED_OUT = """
            grpc_addr: 0.0.0.0:19091
            tcp_addr: 0.0.0.0:19092
            unix_addr: ""
            proxies:
              default:
                kafka:
                  seed_peers: [localhost:9092]
                  version: 0.10.2.1
                  tls: false
                  ca_certificate_file: ""
                  client_certificate_file: ""
                  client_key_file: ""
                  insecure: false
                net:
                  dial_timeout: 30s
                  read_timeout: 30s
                  write_timeout: 30s
                  sasl:
                    enable: false
                    handshake: false
                    user: ""
                    password: ""
                zoo_keeper:
                  seed_peers: [localhost:2181]
                  chroot: ""
                  session_timeout: 15s
                producer:
                  channel_buffer_size: 4096
                  max_message_bytes: 1000000
                  compression: snappy
                  flush_bytes: 1048576
                  flush_frequency: 500ms
                  retry_backoff: 10s
                  retry_max: 6
                  required_acks: wait_for_all
                  shutdown_timeout: 30s
                  partitioner: hash
                  timeout: 10s
                consumer:
                  disabled: false
                  ack_timeout: 5m
                  channel_buffer_size: 64
                  fetch_max_bytes: 1048576
                  fetch_max_wait: 250ms
                  long_polling_timeout: 3s
                  max_pending_messages: 300
                  max_retries: -1
                  offsets_commit_interval: 500ms
                  rebalance_delay: 0s
                  retry_backoff: 500ms
                  subscription_timeout: 15s
            tls:
              certificate_path: ""
              key_path: ""
            logging:
              - name: console
                severity: info
            """;

    /** The original's default values, spelled out rather than read from the records' constants. */
    private static void assertOriginalDefaults(ProxyConfig p) {
        assertAll(
                () -> assertEquals(ID, p.clientId(), "client_id"),
                () -> assertEquals(List.of("localhost:9092"), p.kafka().seedPeers(), "kafka.seed_peers"),
                () -> assertEquals("0.10.2.1", p.kafka().version(), "kafka.version"),
                () -> assertFalse(p.kafka().tls(), "kafka.tls"),
                () -> assertEquals("", p.kafka().caCertificateFile(), "kafka.ca_certificate_file"),
                () -> assertEquals("", p.kafka().clientCertificateFile(), "kafka.client_certificate_file"),
                () -> assertEquals("", p.kafka().clientKeyFile(), "kafka.client_key_file"),
                () -> assertFalse(p.kafka().insecure(), "kafka.insecure"),
                () -> assertEquals(Duration.ofSeconds(30), p.net().dialTimeout(), "net.dial_timeout"),
                () -> assertEquals(Duration.ofSeconds(30), p.net().readTimeout(), "net.read_timeout"),
                () -> assertEquals(Duration.ofSeconds(30), p.net().writeTimeout(), "net.write_timeout"),
                () -> assertFalse(p.net().sasl().enable(), "net.sasl.enable"),
                () -> assertFalse(p.net().sasl().handshake(), "net.sasl.handshake"),
                () -> assertEquals("", p.net().sasl().user(), "net.sasl.user"),
                () -> assertEquals("", p.net().sasl().password(), "net.sasl.password"),
                () -> assertEquals(List.of("localhost:2181"), p.zooKeeper().seedPeers(), "zoo_keeper.seed_peers"),
                () -> assertEquals("", p.zooKeeper().chroot(), "zoo_keeper.chroot"),
                () -> assertEquals(Duration.ofSeconds(15), p.zooKeeper().sessionTimeout(), "zoo_keeper.session_timeout"),
                () -> assertEquals(4096, p.producer().channelBufferSize(), "producer.channel_buffer_size"),
                () -> assertEquals(1_000_000, p.producer().maxMessageBytes(), "producer.max_message_bytes"),
                () -> assertEquals(ProducerConfig.Compression.SNAPPY, p.producer().compression(), "producer.compression"),
                () -> assertEquals(1_048_576, p.producer().flushBytes(), "producer.flush_bytes"),
                () -> assertEquals(Duration.ofMillis(500), p.producer().flushFrequency(), "producer.flush_frequency"),
                () -> assertEquals(Duration.ofSeconds(10), p.producer().retryBackoff(), "producer.retry_backoff"),
                () -> assertEquals(6, p.producer().retryMax(), "producer.retry_max"),
                () -> assertEquals(ProducerConfig.RequiredAcks.WAIT_FOR_ALL, p.producer().requiredAcks(),
                        "producer.required_acks"),
                () -> assertEquals(Duration.ofSeconds(30), p.producer().shutdownTimeout(), "producer.shutdown_timeout"),
                () -> assertEquals(ProducerConfig.Partitioner.HASH, p.producer().partitioner(), "producer.partitioner"),
                () -> assertEquals(Duration.ofSeconds(10), p.producer().timeout(), "producer.timeout"),
                () -> assertFalse(p.consumer().disabled(), "consumer.disabled"),
                () -> assertEquals(Duration.ofMinutes(5), p.consumer().ackTimeout(), "consumer.ack_timeout"),
                () -> assertEquals(64, p.consumer().channelBufferSize(), "consumer.channel_buffer_size"),
                () -> assertEquals(1_048_576, p.consumer().fetchMaxBytes(), "consumer.fetch_max_bytes"),
                () -> assertEquals(Duration.ofMillis(250), p.consumer().fetchMaxWait(), "consumer.fetch_max_wait"),
                () -> assertEquals(Duration.ofSeconds(3), p.consumer().longPollingTimeout(),
                        "consumer.long_polling_timeout"),
                () -> assertEquals(300, p.consumer().maxPendingMessages(), "consumer.max_pending_messages"),
                () -> assertEquals(-1, p.consumer().maxRetries(), "consumer.max_retries"),
                () -> assertEquals(Duration.ofMillis(500), p.consumer().offsetsCommitInterval(),
                        "consumer.offsets_commit_interval"),
                () -> assertEquals(Duration.ZERO, p.consumer().rebalanceDelay(), "consumer.rebalance_delay"),
                () -> assertEquals(Duration.ofMillis(500), p.consumer().retryBackoff(), "consumer.retry_backoff"),
                () -> assertEquals(Duration.ofSeconds(15), p.consumer().subscriptionTimeout(),
                        "consumer.subscription_timeout"),
                () -> assertEquals(ConsumerConfig.Membership.KAFKA, p.consumer().membership(), "consumer.membership"));
    }

    private static void assertOriginalTopLevelDefaults(PixyConfig c) {
        assertAll(
                () -> assertEquals("0.0.0.0:19091", c.grpcAddr(), "grpc_addr"),
                () -> assertEquals("0.0.0.0:19092", c.tcpAddr(), "tcp_addr"),
                () -> assertEquals("", c.unixAddr(), "unix_addr"),
                () -> assertEquals("", c.tls().certificatePath(), "tls.certificate_path"),
                () -> assertEquals("", c.tls().keyPath(), "tls.key_path"),
                () -> assertFalse(c.tls().enabled(), "tls enabled"),
                () -> assertEquals(List.of(LoggingConfig.sink("console").withSeverity("info")), c.logging(),
                        "logging"));
    }

    private static PixyConfig parse(String yaml) {
        return ConfigLoader.fromYaml(yaml, ID);
    }

    private static String errorOf(String yaml) {
        return assertThrows(ConfigException.class, () -> parse(yaml)).getMessage();
    }

    /** A one-proxy config named {@code pxy} with {@code key: value} in {@code section}. */
    private static String proxyWith(String section, String key, String value) {
        return "proxies:\n  pxy:\n    " + section + ":\n      " + key + ": " + value + "\n";
    }

    // ---- defaults ------------------------------------------------------------------------------------------------

    @Test
    void withoutAConfigFileThereIsOneProxyNamedDefaultWithTheOriginalDefaults() {
        PixyConfig c = PixyConfig.defaults(ID);

        assertOriginalTopLevelDefaults(c);
        assertEquals("default", c.defaultCluster());
        assertEquals(List.of("default"), List.copyOf(c.proxies().keySet()));
        assertOriginalDefaults(c.defaultProxy());
        assertFalse(c.defaultProxy().producer().flushFrequencyExplicit());
        ConfigLoader.validate(c);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"proxies:\n  default:\n", "proxies:\n  default: {}\n", "proxies:\n  default: ~\n",
                            "proxies:\n  default:\n    kafka:\n    producer: {}\n"})
    void anEmptyProxyEntryHasTheOriginalDefaults(String yaml) {
        PixyConfig c = parse(yaml);

        assertOriginalTopLevelDefaults(c);
        assertEquals("default", c.defaultCluster());
        assertOriginalDefaults(c.defaultProxy());
        assertFalse(c.defaultProxy().producer().flushFrequencyExplicit());
    }

    @Test
    void aFileSpellingOutEveryOriginalDefaultEqualsTheDefaults() {
        PixyConfig c = parse(ORIGINAL_DEFAULTS_SPELLED_OUT);

        assertOriginalTopLevelDefaults(c);
        assertOriginalDefaults(c.defaultProxy());
        assertTrue(c.defaultProxy().producer().flushFrequencyExplicit(), "flush_frequency is written in the file");
    }

    @Test
    void theExampleConfigLoadsToTheDefaults() throws IOException {
        String yaml;
        try (InputStream in = ConfigLoader.class.getResourceAsStream("/kafka-pixy.example.yaml")) {
            yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }

        PixyConfig c = parse(yaml);

        PixyConfig defaults = PixyConfig.defaults(ID);
        ZooKeeperConfig zd = defaults.defaultProxy().zooKeeper();
        // the example writes the default seed_peers out, so a kafka-mode instance checks that ZooKeeper
        assertEquals(defaults.withProxies(java.util.Map.of("default", defaults.defaultProxy().withZooKeeper(
                zd.with(ZooKeeperConfig.SEED_PEERS, zd.seedPeers())))), c);
        assertOriginalTopLevelDefaults(c);
        assertOriginalDefaults(c.defaultProxy());
    }

    @Test
    void keysMissingFromAPartialFileKeepTheirDefaults() {
        PixyConfig c = parse("""
                proxies:
                  bar:
                    client_id: foo
                    kafka:
                      seed_peers:
                        - 192.168.19.2:9092
                        - 192.168.19.3:9092
                    consumer:
                      long_polling_timeout: 5s
                """);

        ProxyConfig d = ProxyConfig.defaults("foo");
        ProxyConfig expected = d.withKafka(d.kafka().with(KafkaConfig.SEED_PEERS,
                        List.of("192.168.19.2:9092", "192.168.19.3:9092")))
                .withConsumer(ConsumerConfig.DEFAULT.with(ConsumerConfig.LONG_POLLING_TIMEOUT, Duration.ofSeconds(5)));
        assertEquals(PixyConfig.of(Map.of("bar", expected), "bar"), c);
    }

    @Test
    void everyKeyOfTheSchemaIsRead() {
        PixyConfig c = parse("""
                grpc_addr: bar.baz:50000
                tcp_addr: foo.bar:443
                unix_addr: /var/run/kafka-pixy.sock
                default_cluster: b
                tls:
                  certificate_path: /usr/local/etc/server.crt
                  key_path: /usr/local/etc/server.key
                logging:
                  - name: json
                    severity: debug
                  - name: syslog
                    severity: warning
                    params: {tag: pixy, port: 514}
                proxies:
                  a: {}
                  b:
                    client_id: my.id-1
                    kafka:
                      seed_peers: [k1:9092, k2:9092]
                      version: 2.3.0
                      tls: true
                      ca_certificate_file: ca.crt
                      client_certificate_file: client.crt
                      client_key_file: client.key
                      insecure: true
                    net:
                      dial_timeout: 1s
                      read_timeout: 2s
                      write_timeout: 3s
                      sasl: {enable: true, handshake: true, user: u, password: p}
                    zoo_keeper:
                      seed_peers: [z1:2181]
                      chroot: /kafka
                      session_timeout: 20s
                    producer:
                      channel_buffer_size: 1
                      max_message_bytes: 2
                      compression: lz4
                      flush_bytes: 3
                      flush_frequency: 4ms
                      retry_backoff: 5ms
                      retry_max: 7
                      required_acks: wait_for_local
                      shutdown_timeout: 8s
                      partitioner: roundrobin
                      timeout: 9s
                    consumer:
                      disabled: true
                      ack_timeout: 10s
                      channel_buffer_size: 11
                      fetch_max_bytes: 12
                      fetch_max_wait: 13ms
                      long_polling_timeout: 14s
                      max_pending_messages: 15
                      max_retries: 0
                      offsets_commit_interval: 16ms
                      rebalance_delay: 17ms
                      retry_backoff: 18ms
                      subscription_timeout: 19s
                      shutdown_timeout: 20s
                      session_timeout: 21s
                      membership: zookeeper
                """);

        assertEquals(PixyConfig.of(Map.of("a", ProxyConfig.defaults(ID),
                        "b", new ProxyConfig("my.id-1",
                                KafkaConfig.DEFAULT.with(KafkaConfig.SEED_PEERS, List.of("k1:9092", "k2:9092"))
                                        .with(KafkaConfig.VERSION, "2.3.0").with(KafkaConfig.TLS, true)
                                        .with(KafkaConfig.CA_CERTIFICATE_FILE, "ca.crt")
                                        .with(KafkaConfig.CLIENT_CERTIFICATE_FILE, "client.crt")
                                        .with(KafkaConfig.CLIENT_KEY_FILE, "client.key")
                                        .with(KafkaConfig.INSECURE, true),
                                NetConfig.DEFAULT.with(NetConfig.DIAL_TIMEOUT, Duration.ofSeconds(1))
                                        .with(NetConfig.READ_TIMEOUT, Duration.ofSeconds(2))
                                        .with(NetConfig.WRITE_TIMEOUT, Duration.ofSeconds(3))
                                        .withSasl(SaslConfig.DEFAULT.with(SaslConfig.ENABLE, true)
                                                .with(SaslConfig.HANDSHAKE, true).with(SaslConfig.USER, "u")
                                                .with(SaslConfig.PASSWORD, "p")),
                                ZooKeeperConfig.DEFAULT.with(ZooKeeperConfig.SEED_PEERS, List.of("z1:2181"))
                                        .with(ZooKeeperConfig.CHROOT, "/kafka")
                                        .with(ZooKeeperConfig.SESSION_TIMEOUT, Duration.ofSeconds(20)),
                                ProducerConfig.DEFAULT.with(ProducerConfig.CHANNEL_BUFFER_SIZE, 1)
                                        .with(ProducerConfig.MAX_MESSAGE_BYTES, 2)
                                        .with(ProducerConfig.COMPRESSION, ProducerConfig.Compression.LZ4)
                                        .with(ProducerConfig.FLUSH_BYTES, 3)
                                        .with(ProducerConfig.FLUSH_FREQUENCY, Duration.ofMillis(4))
                                        .with(ProducerConfig.RETRY_BACKOFF, Duration.ofMillis(5))
                                        .with(ProducerConfig.RETRY_MAX, 7)
                                        .with(ProducerConfig.REQUIRED_ACKS, ProducerConfig.RequiredAcks.WAIT_FOR_LOCAL)
                                        .with(ProducerConfig.SHUTDOWN_TIMEOUT, Duration.ofSeconds(8))
                                        .with(ProducerConfig.PARTITIONER, ProducerConfig.Partitioner.ROUNDROBIN)
                                        .with(ProducerConfig.TIMEOUT, Duration.ofSeconds(9)),
                                ConsumerConfig.DEFAULT.with(ConsumerConfig.DISABLED, true)
                                        .with(ConsumerConfig.ACK_TIMEOUT, Duration.ofSeconds(10))
                                        .with(ConsumerConfig.CHANNEL_BUFFER_SIZE, 11)
                                        .with(ConsumerConfig.FETCH_MAX_BYTES, 12)
                                        .with(ConsumerConfig.FETCH_MAX_WAIT, Duration.ofMillis(13))
                                        .with(ConsumerConfig.LONG_POLLING_TIMEOUT, Duration.ofSeconds(14))
                                        .with(ConsumerConfig.MAX_PENDING_MESSAGES, 15)
                                        .with(ConsumerConfig.MAX_RETRIES, 0)
                                        .with(ConsumerConfig.OFFSETS_COMMIT_INTERVAL, Duration.ofMillis(16))
                                        .with(ConsumerConfig.REBALANCE_DELAY, Duration.ofMillis(17))
                                        .with(ConsumerConfig.RETRY_BACKOFF, Duration.ofMillis(18))
                                        .with(ConsumerConfig.SUBSCRIPTION_TIMEOUT, Duration.ofSeconds(19))
                                        .with(ConsumerConfig.SHUTDOWN_TIMEOUT, Duration.ofSeconds(20))
                                        .with(ConsumerConfig.SESSION_TIMEOUT, Duration.ofSeconds(21))
                                        .with(ConsumerConfig.MEMBERSHIP, ConsumerConfig.Membership.ZOOKEEPER))), "b")
                .with(PixyConfig.GRPC_ADDR, "bar.baz:50000").with(PixyConfig.TCP_ADDR, "foo.bar:443")
                .with(PixyConfig.UNIX_ADDR, "/var/run/kafka-pixy.sock")
                .withTls(ServerTlsConfig.NONE.with(ServerTlsConfig.CERTIFICATE_PATH, "/usr/local/etc/server.crt")
                        .with(ServerTlsConfig.KEY_PATH, "/usr/local/etc/server.key"))
                .withLogging(List.of(LoggingConfig.sink("json").withSeverity("debug"),
                        LoggingConfig.sink("syslog").withSeverity("warning")
                                .withParams(Map.of("tag", "pixy", "port", "514")))), c);
        assertEquals(List.of("a", "b"), List.copyOf(c.proxies().keySet()));
    }

    // ---- proxies, default cluster, client id ---------------------------------------------------------------------

    @Test
    void proxiesKeepFileOrderAndTheFirstIsTheDefault() {
        PixyConfig c = parse("""
                proxies:
                  foo:
                    client_id: foo_id
                  bar:
                    client_id: bar_id
                  bazz:
                    client_id: bazz_id
                """);

        assertEquals(List.of("foo", "bar", "bazz"), List.copyOf(c.proxies().keySet()));
        assertEquals("foo", c.defaultCluster());
        assertEquals("foo_id", c.proxies().get("foo").clientId());
        assertEquals("bar_id", c.proxies().get("bar").clientId());
        assertEquals("bazz_id", c.proxies().get("bazz").clientId());
    }

    @Test
    void defaultClusterChoosesTheDefaultProxy() {
        PixyConfig c = parse("default_cluster: bar\nproxies:\n  foo: {}\n  bar: {}\n");

        assertEquals("bar", c.defaultCluster());
        assertEquals(List.of("foo", "bar"), List.copyOf(c.proxies().keySet()));
    }

    @Test
    void defaultClusterNamingNoProxyIsRejected() {
        assertEquals("invalid config parameter: default_cluster \"bazz\" does not name a configured proxy, "
                     + "want one of [foo, bar]",
                errorOf("default_cluster: bazz\nproxies:\n  foo: {}\n  bar: {}\n"));
    }

    @Test
    void proxiesWithoutClientIdShareTheGivenOne() {
        PixyConfig c = parse("proxies:\n  a: {}\n  b:\n    client_id: own\n  c: {}\n");

        assertEquals(ID, c.proxies().get("a").clientId());
        assertEquals("own", c.proxies().get("b").clientId());
        assertEquals(ID, c.proxies().get("c").clientId());
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"", "# only a comment\n", "grpc_addr: x:1\n", "proxies:\n", "proxies: {}\n"})
    void aConfigWithoutProxiesIsRejected(String yaml) {
        assertEquals("invalid config parameter: at least on proxy must be configured", errorOf(yaml));
    }

    @Test
    void disablingEveryServerIsRejected() {
        assertEquals("invalid config parameter: at least one API server should be configured",
                errorOf("grpc_addr: ''\ntcp_addr: ''\nunix_addr: ''\nproxies:\n  a: {}\n"));
    }

    @Test
    void anyOneServerIsEnough() {
        PixyConfig c = parse("grpc_addr: ''\ntcp_addr: ''\nunix_addr: /tmp/p.sock\nproxies:\n  a: {}\n");

        assertEquals("", c.grpcAddr());
        assertEquals("", c.tcpAddr());
        assertEquals("/tmp/p.sock", c.unixAddr());
    }

    // ---- validation ----------------------------------------------------------------------------------------------

    static Stream<Arguments> violations() {
        return Stream.of(
                Arguments.of("producer", "channel_buffer_size", "0", "producer.channel_buffer_size must be > 0"),
                Arguments.of("producer", "flush_bytes", "-1", "producer.flush_bytes must be >= 0"),
                Arguments.of("producer", "flush_frequency", "-1ms", "producer.flush_frequency must be >= 0"),
                Arguments.of("producer", "retry_backoff", "0s", "producer.retry_backoff must be > 0"),
                Arguments.of("producer", "retry_max", "0", "producer.retry_max must be > 0"),
                Arguments.of("producer", "shutdown_timeout", "-1s", "producer.shutdown_timeout must be >= 0"),
                Arguments.of("producer", "timeout", "-1s", "producer.timeout must be >= 0"),
                Arguments.of("producer", "partitioner", "fnv",
                        "producer.partitioner is invalid: \"bad partitioner: fnv\""),
                Arguments.of("consumer", "ack_timeout", "0s", "consumer.ack_timeout must be > 0"),
                Arguments.of("consumer", "channel_buffer_size", "0", "consumer.channel_buffer_size must be > 0"),
                Arguments.of("consumer", "fetch_max_bytes", "0", "consumer.fetch_bytes must be > 0"),
                Arguments.of("consumer", "long_polling_timeout", "0s", "consumer.long_polling_timeout must be > 0"),
                Arguments.of("consumer", "max_pending_messages", "0", "consumer.max_pending_messages must be > 0"),
                Arguments.of("consumer", "max_retries", "-2", "consumer.max_retries must be >= -1"),
                Arguments.of("consumer", "offsets_commit_interval", "0s",
                        "consumer.offsets_commit_interval must be > 0"),
                Arguments.of("consumer", "subscription_timeout", "-1s", "consumer.subscription_timeout must be > 0"),
                Arguments.of("consumer", "retry_backoff", "0s", "consumer.retry_backoff must be > 0"),
                Arguments.of("consumer", "shutdown_timeout", "-1s", "consumer.shutdown_timeout must be >= 0"),
                Arguments.of("consumer", "session_timeout", "1999ms",
                        "consumer.session_timeout must be between 2s and 30m"),
                Arguments.of("consumer", "session_timeout", "31m",
                        "consumer.session_timeout must be between 2s and 30m"),
                Arguments.of("consumer", "membership", "kafka2",
                        "consumer.membership must be kafka, zookeeper or share, got \"kafka2\""),
                Arguments.of("consumer", "membership", "Kafka",
                        "consumer.membership must be kafka, zookeeper or share, got \"Kafka\""),
                // Checks the original left to sarama at client creation:
                Arguments.of("kafka", "seed_peers", "[]", "kafka.seed_peers must not be empty"),
                Arguments.of("producer", "max_message_bytes", "0", "producer.max_message_bytes must be > 0"),
                Arguments.of("net", "dial_timeout", "0s", "net.dial_timeout must be > 0"),
                Arguments.of("net", "read_timeout", "0s", "net.read_timeout must be > 0"),
                Arguments.of("net", "write_timeout", "0s", "net.write_timeout must be > 0"),
                Arguments.of("net", "sasl", "{enable: true, password: p}",
                        "net.sasl.user must not be empty when net.sasl.enable is true"),
                Arguments.of("net", "sasl", "{enable: true, user: u}",
                        "net.sasl.password must not be empty when net.sasl.enable is true"),
                Arguments.of("consumer", "fetch_max_wait", "999us", "consumer.fetch_max_wait must be >= 1ms"),
                Arguments.of("consumer", "share_consumers", "0", "consumer.share_consumers must be > 0"),
                Arguments.of("consumer", "dead_letter_topic", "\"{topic} dlt\"", "consumer.dead_letter_topic must be "
                        + "a topic name (letters, digits, '.', '_', '-'), `{topic}` standing for the message's topic"),
                Arguments.of("consumer", "dead_letter_topic", "..", "consumer.dead_letter_topic must be a topic "
                        + "name (letters, digits, '.', '_', '-'), `{topic}` standing for the message's topic"),
                Arguments.of("zoo_keeper", "session_timeout", "0s", "zoo_keeper.session_timeout must be > 0"));
    }

    @ParameterizedTest(name = "{0}.{1}: {2} -> {3}")
    @MethodSource("violations")
    void anOutOfBoundsValueIsRejectedNamingTheKeyAndCluster(String section, String key, String value, String text) {
        assertEquals("invalid config parameter: invalid config, cluster=pxy: " + text,
                errorOf(proxyWith(section, key, value)));
    }

    @Test
    void theStreamLimitsAreReadAndMustBePositive() {
        String proxies = "proxies: {pxy: {}}\n";
        LimitsConfig limits = parse(proxies + "limits: {max_unanswered_produces_per_stream: 5, max_streams: 7, "
                                    + "max_credits_per_stream: 9}").limits();
        assertEquals(LimitsConfig.DEFAULT.with(LimitsConfig.MAX_UNANSWERED_PRODUCES_PER_STREAM, 5)
                .with(LimitsConfig.MAX_STREAMS, 7).with(LimitsConfig.MAX_CREDITS_PER_STREAM, 9), limits);
        assertTrue(errorOf(proxies + "limits: {max_streams: 0}").endsWith("limits.max_streams must be > 0"));
        assertTrue(errorOf(proxies + "limits: {max_credits_per_stream: 0}")
                .endsWith("limits.max_credits_per_stream must be > 0"));
    }

    @Test
    void theGroupLimitIsReadMustBePositiveAndFitsTheDeploymentByDefault() {
        String proxies = "proxies: {pxy: {}}\n";
        assertEquals(LimitsConfig.DEFAULT.with(LimitsConfig.MAX_GROUPS, 7),
                parse(proxies + "limits: {max_groups: 7}").limits());
        assertEquals(60, parse(proxies).limits().maxGroups());
        assertEquals(3_000, parse(proxies).limits().maxParkedRequests());
        assertTrue(errorOf(proxies + "limits: {max_groups: 0}").endsWith("limits.max_groups must be > 0"));
    }

    @Test
    void theRestParkedLimitIsReadAndMustBePositive() {
        String proxies = "proxies: {pxy: {}}\n";
        assertEquals(LimitsConfig.DEFAULT.with(LimitsConfig.MAX_PARKED_REST_REQUESTS, 5),
                parse(proxies + "limits: {max_parked_rest_requests: 5}").limits());
        assertEquals(1_000, parse(proxies).limits().maxParkedRestRequests());
        assertTrue(errorOf(proxies + "limits: {max_parked_rest_requests: 0}")
                .endsWith("limits.max_parked_rest_requests must be > 0"));
    }

    @Test
    void theRestConnectionLimitIsReadAndMustBePositive() {
        String proxies = "proxies: {pxy: {}}\n";
        assertEquals(LimitsConfig.DEFAULT.with(LimitsConfig.MAX_REST_CONNECTIONS, 9),
                parse(proxies + "limits: {max_rest_connections: 9}").limits());
        assertEquals(1_200, parse(proxies).limits().maxRestConnections());
        assertTrue(errorOf(proxies + "limits: {max_rest_connections: 0}")
                .endsWith("limits.max_rest_connections must be > 0"));
    }

    @Test
    void boundaryValuesAreAccepted() {
        ProxyConfig p = parse("""
                proxies:
                  pxy:
                    producer: {flush_bytes: 0, flush_frequency: 0, shutdown_timeout: 0s, timeout: 0s, retry_max: 1}
                    consumer: {max_retries: -1, fetch_max_wait: 1ms}
                """).defaultProxy();

        assertEquals(0, p.producer().flushBytes());
        assertEquals(Duration.ZERO, p.producer().flushFrequency());
        assertEquals(1, p.producer().retryMax());
        assertEquals(-1, p.consumer().maxRetries());
    }

    @ParameterizedTest(name = "client_id: {0}")
    @ValueSource(strings = {"'a b'", "'pixy:1'", "''", "'ü'"})
    void aClientIdOutsideKafkasAlphabetIsRejected(String clientId) {
        assertThat(errorOf("proxies:\n  pxy:\n    client_id: " + clientId + "\n"),
                startsWith("invalid config parameter: invalid config, cluster=pxy: client_id must match "
                           + "^[a-zA-Z0-9._-]+$, got "));
    }

    @Test
    void zooKeeperPeersCountAsNamedOnlyWhenTheConfigGivesThem() {
        assertFalse(parse("proxies:\n  pxy:\n    zoo_keeper: {chroot: /x}\n").defaultProxy().zooKeeper().named(),
                "the default localhost:2181 is not a ZooKeeper to check");
        assertTrue(parse("proxies:\n  pxy:\n    zoo_keeper: {seed_peers: [z1:2181]}\n").defaultProxy().zooKeeper()
                .named());
    }

    @Test
    void zookeeperMembershipNeedsZookeeperPeers() {
        assertEquals("invalid config parameter: invalid config, cluster=pxy: "
                     + "zoo_keeper.seed_peers must not be empty when consumer.membership is zookeeper",
                errorOf("proxies:\n  pxy:\n    zoo_keeper: {seed_peers: []}\n    consumer: {membership: zookeeper}\n"));
        assertEquals(List.of(), parse("proxies:\n  pxy:\n    zoo_keeper: {seed_peers: []}\n").defaultProxy()
                .zooKeeper().seedPeers());
    }

    @Test
    void theFirstViolationInTheFirstBadClusterIsReported() {
        assertEquals("invalid config parameter: invalid config, cluster=b: producer.retry_max must be > 0",
                errorOf("""
                        proxies:
                          a: {}
                          b:
                            producer: {retry_max: 0, channel_buffer_size: 1}
                            consumer: {ack_timeout: 0s}
                          c:
                            producer: {retry_max: 0}
                        """));
    }

    // ---- enumerated values ---------------------------------------------------------------------------------------

    static Stream<Arguments> badEnums() {
        return Stream.of(
                Arguments.of("producer", "compression", "zstd", "failed to parse config: bad compression, zstd"),
                Arguments.of("producer", "compression", "Snappy", "failed to parse config: bad compression, Snappy"),
                Arguments.of("producer", "required_acks", "all", "failed to parse config: bad compression, all"),
                Arguments.of("kafka", "version", "latest", "failed to parse config: bad kafka version, latest"),
                Arguments.of("kafka", "version", "1.0", "failed to parse config: bad kafka version, 1.0"),
                Arguments.of("kafka", "version", "0.10.2.3", "failed to parse config: bad kafka version, 0.10.2.3"),
                Arguments.of("kafka", "version", "3.7.0-IV1", "failed to parse config: bad kafka version, 3.7.0-IV1"),
                Arguments.of("kafka", "version", "''", "failed to parse config: bad kafka version, "));
    }

    @ParameterizedTest(name = "{0}.{1}: {2}")
    @MethodSource("badEnums")
    void anUnknownEnumeratedValueFailsWithTheOriginalsText(String section, String key, String value, String text) {
        assertEquals(text, errorOf(proxyWith(section, key, value)));
    }

    static Stream<Arguments> enums() {
        return Stream.of(
                Arguments.of("compression", "none", ProducerConfig.Compression.NONE),
                Arguments.of("compression", "gzip", ProducerConfig.Compression.GZIP),
                Arguments.of("compression", "snappy", ProducerConfig.Compression.SNAPPY),
                Arguments.of("compression", "lz4", ProducerConfig.Compression.LZ4),
                Arguments.of("required_acks", "no_response", ProducerConfig.RequiredAcks.NO_RESPONSE),
                Arguments.of("required_acks", "wait_for_local", ProducerConfig.RequiredAcks.WAIT_FOR_LOCAL),
                Arguments.of("required_acks", "wait_for_all", ProducerConfig.RequiredAcks.WAIT_FOR_ALL),
                Arguments.of("partitioner", "hash", ProducerConfig.Partitioner.HASH),
                Arguments.of("partitioner", "random", ProducerConfig.Partitioner.RANDOM),
                Arguments.of("partitioner", "roundrobin", ProducerConfig.Partitioner.ROUNDROBIN));
    }

    @ParameterizedTest(name = "producer.{0}: {1}")
    @MethodSource("enums")
    void everyDocumentedProducerValueIsAccepted(String key, String value, Enum<?> expected) {
        ProducerConfig p = parse(proxyWith("producer", key, value)).defaultProxy().producer();

        assertEquals(expected, switch (key) {
            case "compression" -> p.compression();
            case "required_acks" -> p.requiredAcks();
            default -> p.partitioner();
        });
    }

    @ParameterizedTest(name = "membership: {0}")
    @ValueSource(strings = {"kafka", "zookeeper"})
    void membershipIsKafkaOrZookeeper(String value) {
        assertEquals(ConsumerConfig.Membership.valueOf(value.toUpperCase()),
                parse(proxyWith("consumer", "membership", value)).defaultProxy().consumer().membership());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"0.8.2.2", "0.9.0.0", "0.9.0.1", "0.10.0.0", "0.10.0.1", "0.10.1.0", "0.10.2.0",
                            "0.10.2.1", "0.10.2.2", "0.11.0.0", "0.11.0.1", "0.11.0.2", "0.11.0.3", "1.0.0", "1.0.1",
                            "1.0.2", "1.1.0", "1.1.1", "2.0.0", "2.0.1", "2.1.0", "2.1.1", "2.2.0", "2.2.1", "2.3.0",
                            "2.3.1", "2.4.0", "2.8.0", "3.7.0", "3.9.1", "4.0.0", "4.1", "10.0.0"})
    void everyOriginalKafkaVersionAndAnyNewerOneIsAccepted(String version) {
        assertEquals(version, parse(proxyWith("kafka", "version", version)).defaultProxy().kafka().version());
    }

    // ---- value syntax and types ----------------------------------------------------------------------------------

    static Stream<Arguments> durationValues() {
        return Stream.of(
                Arguments.of("1h30m", Duration.ofMinutes(90)),
                Arguments.of("1.5s", Duration.ofMillis(1500)),
                Arguments.of("300ms", Duration.ofMillis(300)),
                Arguments.of("'2m'", Duration.ofMinutes(2)),
                Arguments.of("1500000000", Duration.ofMillis(1500)),
                Arguments.of("5", Duration.ofNanos(5)),
                Arguments.of("2000000000.9", Duration.ofSeconds(2)),
                Arguments.of("0x10", Duration.ofNanos(16)),
                Arguments.of("1_000", Duration.ofNanos(1000)));
    }

    @ParameterizedTest(name = "ack_timeout: {0}")
    @MethodSource("durationValues")
    void durationsAreGoSyntaxOrNanoseconds(String value, Duration expected) {
        assertEquals(expected, parse(proxyWith("consumer", "ack_timeout", value)).defaultProxy().consumer().ackTimeout());
    }

    static Stream<Arguments> typeErrors() {
        return Stream.of(
                Arguments.of(proxyWith("consumer", "long_polling_timeout", "Kaboom!"),
                        "proxies.pxy.consumer.long_polling_timeout: time: invalid duration \"Kaboom!\""),
                Arguments.of(proxyWith("consumer", "ack_timeout", "'5'"),
                        "proxies.pxy.consumer.ack_timeout: time: missing unit in duration \"5\""),
                Arguments.of(proxyWith("consumer", "ack_timeout", "true"),
                        "proxies.pxy.consumer.ack_timeout: cannot unmarshal !!bool `true` into time.Duration"),
                Arguments.of(proxyWith("consumer", "ack_timeout", "[1s]"),
                        "proxies.pxy.consumer.ack_timeout: cannot unmarshal !!seq into time.Duration"),
                Arguments.of(proxyWith("producer", "retry_max", "six"),
                        "proxies.pxy.producer.retry_max: cannot unmarshal !!str `six` into int"),
                Arguments.of(proxyWith("producer", "retry_max", "'6'"),
                        "proxies.pxy.producer.retry_max: cannot unmarshal !!str `6` into int"),
                Arguments.of(proxyWith("producer", "retry_max", "99999999999"),
                        "proxies.pxy.producer.retry_max: 99999999999 is out of range for int"),
                Arguments.of(proxyWith("consumer", "disabled", "maybe"),
                        "proxies.pxy.consumer.disabled: cannot unmarshal !!str `maybe` into bool"),
                Arguments.of(proxyWith("kafka", "seed_peers", "localhost:9092"),
                        "proxies.pxy.kafka.seed_peers: cannot unmarshal !!str `localhost:9092` into []string"),
                Arguments.of(proxyWith("kafka", "seed_peers", "[[a]]"),
                        "proxies.pxy.kafka.seed_peers[0]: cannot unmarshal !!seq into string"),
                Arguments.of(proxyWith("kafka", "version", "{a: b}"),
                        "proxies.pxy.kafka.version: cannot unmarshal !!map into string"),
                Arguments.of("proxies:\n  pxy:\n    producer: fast\n",
                        "proxies.pxy.producer: cannot unmarshal !!str `fast` into a mapping"),
                Arguments.of("proxies: [a, b]\n", "proxies: cannot unmarshal !!seq into a mapping"),
                Arguments.of("just text\n", "cannot unmarshal !!str `just text` into a mapping"),
                Arguments.of("logging: console\nproxies:\n  pxy: {}\n",
                        "logging: cannot unmarshal !!str `console` into a list"),
                Arguments.of("tls: {certificate_path: [a]}\nproxies:\n  pxy: {}\n",
                        "tls.certificate_path: cannot unmarshal !!seq into string"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("typeErrors")
    void aValueOfTheWrongTypeFailsNamingTheKeyAndTheValue(String yaml, String text) {
        assertEquals("failed to parse config: " + text, errorOf(yaml));
    }

    @Test
    void everyTypeErrorOfTheFileIsReportedAtOnce() {
        assertEquals("failed to parse config: proxies.pxy.producer.retry_max: cannot unmarshal !!str `x` into int; "
                     + "proxies.pxy.consumer.ack_timeout: time: invalid duration \"y\"",
                errorOf("proxies:\n  pxy:\n    consumer: {ack_timeout: y}\n    producer: {retry_max: x}\n"));
    }

    @Test
    void typeErrorsAreReportedBeforeOutOfBoundsValues() {
        assertThat(errorOf("proxies:\n  pxy:\n    producer: {retry_max: 0, flush_bytes: x}\n"),
                startsWith("failed to parse config: proxies.pxy.producer.flush_bytes"));
    }

    @Test
    void brokenYamlFailsWithTheLineOfTheProblem() {
        assertThat(errorOf("proxies:\n  pxy:\n    kafka: {seed_peers: [a\n"),
                startsWith("failed to parse config: yaml: line "));
        assertThat(errorOf("proxies:\n  pxy:\n   bad: indentation\n    producer: {}\n"),
                startsWith("failed to parse config: yaml: line "));
    }

    @Test
    void scalarsOfAnyTypeReadAsTextWhereTextIsExpected() {
        ProxyConfig p = parse("""
                proxies:
                  pxy:
                    client_id: 12345
                    kafka: {version: 2.8, seed_peers: [9092, true]}
                    zoo_keeper: {chroot: 1.50}
                """).defaultProxy();

        assertEquals("12345", p.clientId());
        assertEquals("2.8", p.kafka().version());
        assertEquals(List.of("9092", "true"), p.kafka().seedPeers());
        assertEquals("1.50", p.zooKeeper().chroot());
    }

    @Test
    void aKeyWithAnEmptyValueTakesTheZeroValueOfItsType() {
        PixyConfig c = parse("""
                grpc_addr:
                proxies:
                  pxy:
                    kafka:
                      tls:
                      ca_certificate_file:
                    producer:
                      flush_bytes:
                      flush_frequency:
                    zoo_keeper:
                      seed_peers:
                """);

        assertEquals("", c.grpcAddr());
        ProxyConfig p = c.defaultProxy();
        assertFalse(p.kafka().tls());
        assertEquals("", p.kafka().caCertificateFile());
        assertEquals(0, p.producer().flushBytes());
        assertEquals(Duration.ZERO, p.producer().flushFrequency());
        assertTrue(p.producer().flushFrequencyExplicit());
        assertEquals(List.of(), p.zooKeeper().seedPeers());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"yes", "on", "True", "TRUE"})
    void yaml11BooleansAreAccepted(String value) {
        assertTrue(parse(proxyWith("kafka", "tls", value)).defaultProxy().kafka().tls());
    }

    @Test
    void integersAcceptYamlSyntaxAndFloatsAreTruncatedAsByTheOriginal() {
        ProducerConfig p = parse("proxies:\n  pxy:\n    producer: {retry_max: 6.9, flush_bytes: 0x400, "
                                 + "max_message_bytes: 1_000}\n").defaultProxy().producer();

        assertEquals(6, p.retryMax());
        assertEquals(1024, p.flushBytes());
        assertEquals(1000, p.maxMessageBytes());
    }

    @Test
    void flushFrequencyIsExplicitOnlyWhenTheProxyWritesIt() {
        PixyConfig c = parse("""
                proxies:
                  a:
                    producer: {flush_frequency: 500ms}
                  b:
                    producer: {flush_bytes: 10}
                  c: {}
                """);

        assertTrue(c.proxies().get("a").producer().flushFrequencyExplicit());
        assertFalse(c.proxies().get("b").producer().flushFrequencyExplicit());
        assertFalse(c.proxies().get("c").producer().flushFrequencyExplicit());
        assertEquals(Duration.ofMillis(500), c.proxies().get("b").producer().flushFrequency());
    }

    @Test
    void unknownKeysAreIgnored() {
        PixyConfig c = parse("""
                future_key: 1
                limits: {future_limit: 3}
                proxies:
                  pxy:
                    registration_timeout: 20s
                    kafka: {brokers: [x], version: 0.10.2.1}
                    consumer: {fetch_bytes: nonsense, mystery: {deep: true}}
                """);

        assertOriginalDefaults(c.defaultProxy());
    }

    @Test
    void anUnknownKeyUnderAuthOrTlsStopsTheStartRatherThanLeaveTheApiOpen() {
        assertEquals("unknown config key auth.bearer_token_file: a security setting that is not understood would "
                     + "leave the API unprotected, so it stops the start (check its spelling)",
                errorOf("auth: {bearer_token_file: /etc/tokens}\nproxies:\n  pxy: {}\n"));
        assertEquals("unknown config key tls.ciphers, tls.client_ca: a security setting that is not understood "
                     + "would leave the API unprotected, so it stops the start (check its spelling)",
                errorOf("tls: {ciphers: [x], client_ca: /ca.pem}\nproxies:\n  pxy: {}\n"));
    }

    @Test
    void aDuplicatedKeyTakesItsLastValue() {
        PixyConfig c = parse("proxies:\n  pxy:\n    producer:\n      retry_max: 2\n      retry_max: 3\n");

        assertEquals(3, c.defaultProxy().producer().retryMax());
    }

    @Test
    void anchorsAndMergeKeysWork() {
        PixyConfig c = parse("""
                proxies:
                  a:
                    producer: &prod {retry_max: 2, compression: gzip}
                  b:
                    producer:
                      <<: *prod
                      retry_max: 3
                """);

        assertEquals(2, c.proxies().get("a").producer().retryMax());
        assertEquals(3, c.proxies().get("b").producer().retryMax());
        assertEquals(ProducerConfig.Compression.GZIP, c.proxies().get("b").producer().compression());
    }

    @Test
    void onlyTheFirstYamlDocumentCounts() {
        PixyConfig c = parse("proxies:\n  first: {}\n---\nproxies:\n  second: {}\n");

        assertEquals(List.of("first"), List.copyOf(c.proxies().keySet()));
    }

    @Test
    void anEmptyLoggingListMeansConsoleAtInfo() {
        assertEquals(List.of(LoggingConfig.DEFAULT), parse("logging: []\nproxies:\n  a: {}\n").logging());
        assertEquals(List.of(LoggingConfig.sink("json").withSeverity("")),
                parse("logging:\n  - name: json\nproxies:\n  a: {}\n").logging());
    }

    // ---- files ---------------------------------------------------------------------------------------------------

    @Test
    void aConfigFileIsReadAsUtf8(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("pixy.yaml");
        Files.writeString(file, "proxies:\n  caf\u00e9: {}\n", StandardCharsets.UTF_8);

        assertEquals("caf\u00e9", ConfigLoader.load(file, ID).defaultCluster());
    }

    @Test
    void aMissingConfigFileFailsLikeGo(@TempDir Path dir) {
        Path file = dir.resolve("absent.yaml");

        assertEquals("open " + file + ": no such file or directory",
                assertThrows(ConfigException.class, () -> ConfigLoader.load(file, ID)).getMessage());
    }

    @Test
    void aFileThatIsNotUtf8IsRejected(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("latin1.yaml");
        Files.write(file, new byte[] {'a', ':', ' ', (byte) 0xe9, '\n'});

        assertThat(assertThrows(ConfigException.class, () -> ConfigLoader.load(file, ID)).getMessage(),
                startsWith("failed to parse config: yaml: invalid UTF-8"));
    }

    @Test
    void validateAcceptsTheDefaultsAndRejectsWhatTheLoaderRejects() {
        PixyConfig defaults = PixyConfig.defaults(ID);
        ConfigLoader.validate(defaults);

        PixyConfig bad = PixyConfig.of(defaults.proxies(), "default").with(PixyConfig.GRPC_ADDR, "")
                .with(PixyConfig.TCP_ADDR, "").withLogging(List.of());
        assertEquals("invalid config parameter: at least one API server should be configured",
                assertThrows(ConfigException.class, () -> ConfigLoader.validate(bad)).getMessage());
    }

    @Test
    void proxyOrderSurvivesManyEntries() {
        StringBuilder yaml = new StringBuilder("proxies:\n");
        for (int i = 20; i > 0; i--) {
            yaml.append("  c").append(i).append(": {}\n");
        }

        assertThat(List.copyOf(parse(yaml.toString()).proxies().keySet()).subList(0, 3), contains("c20", "c19", "c18"));
    }
}
