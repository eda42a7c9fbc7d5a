package io.kafkapixy.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

import io.kafkapixy.errors.GoStrings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CommandLineTest {

    private static final String ID = "kp_test_1";

    /** Two proxies; the default is the second one, so "default cluster only" is not "first proxy only". */
    private static final PixyConfig FILE = ConfigLoader.fromYaml("""
            grpc_addr: file:1
            tcp_addr: file:2
            unix_addr: /file.sock
            default_cluster: main
            logging:
              - {name: console, severity: info}
            proxies:
              other:
                kafka: {seed_peers: [other-kafka:9092], ca_certificate_file: other-ca.pem}
                zoo_keeper: {seed_peers: [other-zk:2181], chroot: /other}
              main:
                kafka: {seed_peers: [file-kafka:9092], ca_certificate_file: file-ca.pem,
                        client_certificate_file: file.crt, client_key_file: file.key}
                zoo_keeper: {seed_peers: [file-zk:2181], chroot: /file}
            """, ID);

    private static PixyConfig apply(String... args) {
        return CommandLine.parse(args).applyTo(FILE);
    }

    private static String errorOf(String... args) {
        return assertThrows(ConfigException.class, () -> CommandLine.parse(args)).getMessage();
    }

    static Stream<Arguments> overrides() {
        Function<PixyConfig, Object> grpc = PixyConfig::grpcAddr;
        Function<PixyConfig, Object> tcp = PixyConfig::tcpAddr;
        Function<PixyConfig, Object> unix = PixyConfig::unixAddr;
        Function<PixyConfig, Object> kafkaPeers = c -> c.defaultProxy().kafka().seedPeers();
        Function<PixyConfig, Object> zkPeers = c -> c.defaultProxy().zooKeeper().seedPeers();
        Function<PixyConfig, Object> chroot = c -> c.defaultProxy().zooKeeper().chroot();
        Function<PixyConfig, Object> ca = c -> c.defaultProxy().kafka().caCertificateFile();
        Function<PixyConfig, Object> cert = c -> c.defaultProxy().kafka().clientCertificateFile();
        Function<PixyConfig, Object> key = c -> c.defaultProxy().kafka().clientKeyFile();
        Function<PixyConfig, Object> logging = PixyConfig::logging;
        return Stream.of(
                Arguments.of("grpcAddr", "0.0.0.0:1", grpc, "0.0.0.0:1"),
                Arguments.of("tcpAddr", "0.0.0.0:2", tcp, "0.0.0.0:2"),
                Arguments.of("unixAddr", "/run/p.sock", unix, "/run/p.sock"),
                Arguments.of("kafkaPeers", "k1:9092,k2:9092", kafkaPeers, List.of("k1:9092", "k2:9092")),
                Arguments.of("kafkaPeers", "k1:9092, ,k2:9092,", kafkaPeers, List.of("k1:9092", "k2:9092")),
                Arguments.of("zookeeperPeers", "z1:2181,z2:2181", zkPeers, List.of("z1:2181", "z2:2181")),
                Arguments.of("caCertFile", "ca.pem", ca, "ca.pem"),
                Arguments.of("clientCertFile", "c.crt", cert, "c.crt"),
                Arguments.of("clientCertKeyFile", "c.key", key, "c.key"),
                Arguments.of("logging", "[{\"name\":\"json\",\"severity\":\"debug\"}]", logging,
                        List.of(LoggingConfig.sink("json").withSeverity("debug"))));
    }

    @ParameterizedTest(name = "-{0} {1}")
    @MethodSource("overrides")
    void aFlagAsSeparateArgumentOverridesTheFile(String flag, String value, Function<PixyConfig, Object> get,
                                                 Object expected) {
        assertEquals(expected, get.apply(apply("-" + flag, value)));
        assertEquals(expected, get.apply(apply("--" + flag, value)));
    }

    @ParameterizedTest(name = "-{0}={1}")
    @MethodSource("overrides")
    void aFlagWithEqualsSignOverridesTheFile(String flag, String value, Function<PixyConfig, Object> get,
                                             Object expected) {
        assertEquals(expected, get.apply(apply("-" + flag + "=" + value)));
        assertEquals(expected, get.apply(apply("--" + flag + "=" + value)));
    }

    @ParameterizedTest(name = "-{0} \"\"")
    @MethodSource("overrides")
    void anEmptyFlagIsNotGiven(String flag, String value, Function<PixyConfig, Object> get, Object expected) {
        assertEquals(get.apply(FILE), get.apply(apply("-" + flag, "")));
        assertEquals(get.apply(FILE), get.apply(apply("--" + flag + "=")));
        assertEquals(get.apply(FILE), get.apply(apply("-" + flag, value, "-" + flag, "")), "last one wins");
    }

    @Test
    void withoutFlagsTheFileIsUnchanged() {
        assertEquals(FILE, apply());
    }

    @Test
    void proxyFlagsChangeOnlyTheDefaultCluster() {
        PixyConfig c = apply("-kafkaPeers", "k:9092", "-zookeeperPeers", "z:2181/new", "-tls", "-insecureTLS",
                "-caCertFile", "ca.pem", "-clientCertFile", "c.crt", "-clientCertKeyFile", "c.key");

        assertEquals(FILE.proxies().get("other"), c.proxies().get("other"));
        KafkaConfig k = c.proxies().get("main").kafka();
        assertEquals(KafkaConfig.DEFAULT.with(KafkaConfig.SEED_PEERS, List.of("k:9092")).with(KafkaConfig.TLS, true)
                .with(KafkaConfig.CA_CERTIFICATE_FILE, "ca.pem").with(KafkaConfig.CLIENT_CERTIFICATE_FILE, "c.crt")
                .with(KafkaConfig.CLIENT_KEY_FILE, "c.key").with(KafkaConfig.INSECURE, true), k);
        assertEquals(FILE.defaultProxy().zooKeeper().with(ZooKeeperConfig.SEED_PEERS, List.of("z:2181"))
                .with(ZooKeeperConfig.CHROOT, "/new"), c.proxies().get("main").zooKeeper());
        assertEquals(List.of("other", "main"), List.copyOf(c.proxies().keySet()));
        assertEquals("main", c.defaultCluster());
    }

    @Test
    void theMembershipFlagSetsTheDefaultClustersGroupsOnly() {
        PixyConfig c = apply("-membership", "share");

        assertEquals(ConsumerConfig.Membership.SHARE, c.proxies().get("main").consumer().membership());
        assertEquals(FILE.proxies().get("other"), c.proxies().get("other"));
        assertEquals(FILE.defaultProxy().consumer(), apply().defaultProxy().consumer(), "unchanged without it");
    }

    @Test
    void accessLogFlagTurnsTheAccessLogOnAndTheFileKeyToo() {
        assertFalse(apply().accessLog());
        assertTrue(apply("-accessLog").accessLog());
        assertTrue(ConfigLoader.fromYaml("""
                access_log: true
                proxies:
                  default: {}
                """, "kp_test_1").accessLog());
    }

    static Stream<Arguments> zookeeperPeers() {
        return Stream.of(
                Arguments.of("z1:2181,z2:2181/kafka", List.of("z1:2181", "z2:2181"), "/kafka"),
                Arguments.of("z1:2181/kafka/prod", List.of("z1:2181"), "/kafka/prod"),
                Arguments.of("z1:2181/", List.of("z1:2181"), "/"),
                Arguments.of("z1:2181", List.of("z1:2181"), "/file"),
                Arguments.of("/only-chroot", List.of("file-zk:2181"), "/only-chroot"));
    }

    @ParameterizedTest(name = "-zookeeperPeers {0}")
    @MethodSource("zookeeperPeers")
    void zookeeperPeersMaySetAChrootFromTheFirstSlash(String value, List<String> peers, String chroot) {
        ZooKeeperConfig z = apply("-zookeeperPeers", value).defaultProxy().zooKeeper();

        assertEquals(peers, z.seedPeers());
        assertEquals(chroot, z.chroot());
    }

    static Stream<Arguments> boolFlags() {
        return Stream.of(
                Arguments.of(new String[] {"-tls"}, true, false),
                Arguments.of(new String[] {"--tls"}, true, false),
                Arguments.of(new String[] {"-tls=true"}, true, false),
                Arguments.of(new String[] {"--tls=1"}, true, false),
                Arguments.of(new String[] {"-tls=false"}, false, false),
                Arguments.of(new String[] {"-insecureTLS"}, false, true),
                Arguments.of(new String[] {"--insecureTLS=T"}, false, true),
                Arguments.of(new String[] {"-tls", "-insecureTLS=F"}, true, false),
                Arguments.of(new String[] {"-tls", "-tls=false"}, false, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("boolFlags")
    void boolFlagsTakeNoValueButAcceptEqualsSign(String[] args, boolean tls, boolean insecure) {
        CommandLine cl = CommandLine.parse(args);
        KafkaConfig k = cl.applyTo(FILE).defaultProxy().kafka();

        assertEquals(tls, cl.kafkaTls());
        assertEquals(insecure, cl.insecureTls());
        assertEquals(tls, k.tls());
        assertEquals(insecure, k.insecure());
    }

    @Test
    void boolFlagsOnlyTurnKafkaTlsOn() {
        PixyConfig tlsInFile = ConfigLoader.fromYaml("proxies:\n  a:\n    kafka: {tls: true, insecure: true}\n", ID);

        KafkaConfig k = CommandLine.parse("-tls=false", "-insecureTLS=false").applyTo(tlsInFile).defaultProxy().kafka();

        assertTrue(k.tls());
        assertTrue(k.insecure());
    }

    @Test
    void aBoolFlagDoesNotTakeTheNextArgument() {
        CommandLine cl = CommandLine.parse("-tls", "false", "-grpcAddr", "x:1");

        assertTrue(cl.kafkaTls());
        assertEquals(Optional.empty(), cl.grpcAddr(), "parsing stops at the first non-flag argument");
        assertEquals(List.of("false", "-grpcAddr", "x:1"), cl.arguments());
    }

    @Test
    void aStringFlagTakesTheNextArgumentEvenIfItLooksLikeAFlag() {
        assertEquals(Optional.of(Path.of("-tls")), CommandLine.parse("-config", "-tls").configFile());
    }

    @Test
    void doubleDashEndsTheFlags() {
        CommandLine cl = CommandLine.parse("-grpcAddr", "x:1", "--", "-tcpAddr", "y:2");

        assertEquals(Optional.of("x:1"), cl.grpcAddr());
        assertEquals(Optional.empty(), cl.tcpAddr());
        assertEquals(List.of("-tcpAddr", "y:2"), cl.arguments());
    }

    @Test
    void configAndPidFileArePaths() {
        CommandLine cl = CommandLine.parse("-config", "/etc/pixy.yaml", "--pidFile=/run/pixy.pid");

        assertEquals(Optional.of(Path.of("/etc/pixy.yaml")), cl.configFile());
        assertEquals(Optional.of(Path.of("/run/pixy.pid")), cl.pidFile());
        assertEquals(Optional.empty(), CommandLine.parse("-config=", "-pidFile", "").configFile());
        assertEquals(Optional.empty(), CommandLine.parse().pidFile());
    }

    @Test
    void loggingKeepsTheRawJsonAndParsesIt() {
        String json = "[{\"name\":\"console\",\"severity\":\"info\"},"
                      + "{\"Name\":\"syslog\",\"SEVERITY\":\"error\",\"params\":{\"tag\":\"x\"},\"other\":1}]";
        CommandLine cl = CommandLine.parse("-logging", json);

        assertEquals(Optional.of(json), cl.loggingJson());
        assertEquals(Optional.of(List.of(LoggingConfig.sink("console").withSeverity("info"),
                LoggingConfig.sink("syslog").withSeverity("error").withParams(Map.of("tag", "x")))), cl.logging());
        assertEquals(Optional.of(List.of()), CommandLine.parse("-logging=[]").logging());
        assertEquals(Optional.empty(), CommandLine.parse().logging());
    }

    @ParameterizedTest(name = "-logging {0}")
    @ValueSource(strings = {"console", "[{\"name\":", "{\"name\":\"console\"}", "[1]", "[{\"name\":3}]",
                            "[{\"params\":[\"a\"]}]"})
    void loggingThatIsNotAnArrayOfLoggersIsRejected(String json) {
        assertThat(errorOf("-logging", json), startsWith("invalid value " + GoStrings.quote(json)
                                                         + " for flag -logging: "));
    }

    static Stream<Arguments> badArguments() {
        return Stream.of(
                Arguments.of(new String[] {"-x"}, "flag provided but not defined: -x"),
                Arguments.of(new String[] {"--kafka-peers=a"}, "flag provided but not defined: -kafka-peers"),
                Arguments.of(new String[] {"-grpcaddr", "a"}, "flag provided but not defined: -grpcaddr"),
                Arguments.of(new String[] {"-config"}, "flag needs an argument: -config"),
                Arguments.of(new String[] {"-tcpAddr", "a", "--grpcAddr"}, "flag needs an argument: -grpcAddr"),
                Arguments.of(new String[] {"---config", "a"}, "bad flag syntax: ---config"),
                Arguments.of(new String[] {"-=a"}, "bad flag syntax: -=a"),
                Arguments.of(new String[] {"-tls=yes"}, "invalid boolean value \"yes\" for -tls: parse error"),
                Arguments.of(new String[] {"-membership", "Share"},
                        "invalid value \"Share\" for flag -membership: must be kafka, zookeeper or share"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badArguments")
    void badArgumentsFailWithGosFlagText(String[] args, String text) {
        assertEquals(text, errorOf(args));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-h", "--help", "-help"})
    void helpIsRequestedAndUsageListsEveryFlag(String arg) {
        assertTrue(CommandLine.parse(arg).helpRequested());
        assertFalse(CommandLine.parse("-tls").helpRequested());
        for (String flag : List.of("config", "grpcAddr", "tcpAddr", "unixAddr", "kafkaPeers", "zookeeperPeers",
                "pidFile", "logging", "tls", "caCertFile", "clientCertFile", "clientCertKeyFile", "insecureTLS",
                "membership", "embeddedKafka", "embeddedKafkaDir", "accessLog")) {
            assertThat(CommandLine.usage(), containsString("  -" + flag));
        }
    }

    @Test
    void withoutConfigFlagTheDefaultsAreUsedAndOverridden() {
        PixyConfig c = CommandLine.parse("-kafkaPeers", "k:9092", "-tcpAddr=:8080").loadConfig(ID);

        assertEquals(PixyConfig.defaults(ID).grpcAddr(), c.grpcAddr());
        assertEquals(":8080", c.tcpAddr());
        assertEquals("default", c.defaultCluster());
        assertEquals(List.of("k:9092"), c.defaultProxy().kafka().seedPeers());
    }

    @Test
    void theConfigFlagLoadsTheFileAndOtherFlagsOverrideIt(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("pixy.yaml");
        Files.writeString(file, "grpc_addr: file:1\nproxies:\n  a:\n    client_id: from_file\n  b: {}\n");

        PixyConfig c = CommandLine.parse("-config", file.toString(), "-grpcAddr", "flag:1", "-tls").loadConfig(ID);

        assertEquals("flag:1", c.grpcAddr());
        assertEquals("from_file", c.proxies().get("a").clientId());
        assertTrue(c.proxies().get("a").kafka().tls());
        assertFalse(c.proxies().get("b").kafka().tls());
        assertEquals(ID, c.proxies().get("b").clientId());
    }

    @Test
    void aMissingConfigFileIsReported(@TempDir Path dir) {
        Path file = dir.resolve("nope.yaml");

        assertEquals("open " + file + ": no such file or directory",
                assertThrows(ConfigException.class,
                        () -> CommandLine.parse("-config", file.toString()).loadConfig(ID)).getMessage());
    }

    @Test
    void theEmbeddedBrokerIsOnlyStartedWhenAskedFor() {
        assertFalse(CommandLine.parse("-config", "x.yaml").embeddedKafka());
        assertTrue(CommandLine.parse("-embeddedKafka").embeddedKafka());
        assertTrue(CommandLine.parse("--embeddedKafka=true", "-embeddedKafkaDir", "/tmp/k").embeddedKafka());
        assertEquals(Optional.of(Path.of("/tmp/k")),
                CommandLine.parse("-embeddedKafka", "--embeddedKafkaDir=/tmp/k").embeddedKafkaDir());
        assertEquals(Optional.empty(), CommandLine.parse("-embeddedKafka").embeddedKafkaDir());
    }
}
