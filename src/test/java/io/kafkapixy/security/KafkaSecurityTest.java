package io.kafkapixy.security;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.kafkapixy.Application;
import io.kafkapixy.config.KafkaConfig;
import io.kafkapixy.config.NetConfig;
import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.config.ProxyConfig;
import io.kafkapixy.config.SaslConfig;
import io.kafkapixy.embedded.EmbeddedKafka;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestCerts;
import io.kafkapixy.testing.TestCerts.Issued;
import io.kafkapixy.testing.TestCerts.KeyFormat;
import io.kafkapixy.testing.TestKafka;
import mailgun.kafkapixy.ConsNAckRq;
import mailgun.kafkapixy.ProdRq;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The proxy reaching a real broker through a SASL_PLAINTEXT listener (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) and
 * through an SSL listener that requires client certificates, configured with the original's keys and PEM files only.
 * Each case produces and consumes through the proxy; the broker's PLAINTEXT listener, read with a plain consumer, is
 * the witness.
 */
class KafkaSecurityTest {

    private static final String JAAS_PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule required "
                                             + "user_alice=\"alice-secret\";";
    private static final String JAAS_SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule required;";

    @TempDir
    static Path dir;
    private static EmbeddedKafka broker;
    private static TestCerts certs;
    private static Issued ca;
    private static Issued otherCa;
    private static Issued client;

    @BeforeAll
    static void start() throws Exception {
        certs = new TestCerts(dir);
        ca = certs.ca("kafka-ca");
        otherCa = certs.ca("not-kafka-ca");
        Issued brokerCert = certs.server(ca, "broker");
        // the client key as `openssl genrsa` writes it (PKCS#1): used as it is, no conversion
        client = certs.client(ca, "pixy-client", KeyFormat.PKCS1_RSA);
        Map<String, String> o = new HashMap<>();
        o.put("listener.name.sasl.sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512");
        o.put("listener.name.sasl.plain.sasl.jaas.config", JAAS_PLAIN);
        o.put("listener.name.sasl.scram-sha-256.sasl.jaas.config", JAAS_SCRAM);
        o.put("listener.name.sasl.scram-sha-512.sasl.jaas.config", JAAS_SCRAM);
        o.put("listener.name.tls.ssl.keystore.type", "PEM");
        o.put("listener.name.tls.ssl.keystore.certificate.chain", TestCerts.pem(brokerCert.certificate()));
        o.put("listener.name.tls.ssl.keystore.key",
                TestCerts.pem(new JcaPKCS8Generator(brokerCert.key(), null).generate()));
        o.put("listener.name.tls.ssl.truststore.type", "PEM");
        o.put("listener.name.tls.ssl.truststore.certificates", TestCerts.pem(ca.certificate()));
        o.put("listener.name.tls.ssl.client.auth", "required");
        broker = EmbeddedKafka.start(Map.of("SASL", "SASL_PLAINTEXT", "TLS", "SSL"), o);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            admin.alterUserScramCredentials(List.of(
                    new UserScramCredentialUpsertion("bob", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256,
                            4096), "bob-secret"),
                    new UserScramCredentialUpsertion("carol", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512,
                            4096), "carol-\"quoted\\-secret"))).all().get();
        }
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void saslPlainWithTheOriginalsKeys() throws Exception {
        roundTrip(sasl(saslConfig("alice", "alice-secret", "PLAIN")), "plain");
    }

    @Test
    void saslScramSha256() throws Exception {
        roundTrip(sasl(saslConfig("bob", "bob-secret", "SCRAM-SHA-256")), "scram256");
    }

    @Test
    void saslScramSha512WithQuotesAndBackslashesInThePassword() throws Exception {
        roundTrip(sasl(saslConfig("carol", "carol-\"quoted\\-secret", "SCRAM-SHA-512")), "scram512");
    }

    @Test
    void aWrongSaslPasswordStopsTheStartWithAnAuthenticationError() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Application.start(
                sasl(saslConfig("alice", "wrong", "PLAIN"))));
        assertTrue(e.getMessage().startsWith("failed to spawn proxy, name=default: failed to create Kafka client: "
                                             + "kafka: authentication failed: "), e.getMessage());
    }

    @Test
    void tlsWithACaBundleAndAClientCertificateFromPemFiles() throws Exception {
        roundTrip(tls(ca.certFile().toString(), false), "tls");
    }

    @Test
    void insecureTlsTakesAServerCertificateNoCaVouchesFor() throws Exception {
        roundTrip(tls("", true), "insecure");
    }

    @Test
    void tlsRefusesABrokerFromAnotherCa() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Application.start(tls(otherCa.certFile().toString(), false)));
        assertTrue(e.getMessage().startsWith("failed to spawn proxy, name=default: failed to create Kafka client: "
                                             + "kafka: authentication failed: "), e.getMessage());
    }

    private static PixyConfig sasl(SaslConfig sasl) {
        ProxyConfig p = RunningPixy.proxy(broker.listenerAddress("SASL"));
        NetConfig n = p.net();
        return config(p.withNet(n.with(NetConfig.DIAL_TIMEOUT, Duration.ofSeconds(10)).withSasl(sasl)));
    }

    private static SaslConfig saslConfig(String user, String password, String mechanism) {
        return SaslConfig.DEFAULT.with(SaslConfig.ENABLE, true).with(SaslConfig.USER, user)
                .with(SaslConfig.PASSWORD, password).with(SaslConfig.MECHANISM, mechanism);
    }

    private static PixyConfig tls(String caFile, boolean insecure) {
        ProxyConfig p = RunningPixy.proxy(broker.listenerAddress("TLS"));
        NetConfig n = p.net();
        KafkaConfig k = p.kafka();
        p = p.withKafka(k.with(KafkaConfig.TLS, true).with(KafkaConfig.CA_CERTIFICATE_FILE, caFile)
                .with(KafkaConfig.CLIENT_CERTIFICATE_FILE, client.certFile().toString())
                .with(KafkaConfig.CLIENT_KEY_FILE, client.keyFile().toString()).with(KafkaConfig.INSECURE, insecure));
        return config(p.withNet(n.with(NetConfig.DIAL_TIMEOUT, Duration.ofSeconds(10))));
    }

    private static PixyConfig config(ProxyConfig p) {
        return RunningPixy.config(broker.bootstrapServers()).withProxies(Map.of("default", p));
    }

    /** Produces over REST, consumes it back over gRPC, and reads it from the PLAINTEXT listener. */
    private static void roundTrip(PixyConfig config, String name) throws Exception {
        String topic = TestKafka.uniqueTopic("sec-" + name);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        try (RunningPixy pixy = RunningPixy.start(config)) {
            ConsNAckRq consume = ConsNAckRq.newBuilder().setTopic(topic).setGroup("g-" + name).setAutoAck(true)
                    .build();
            // a new group starts at the head as of its first request: join before producing
            StatusRuntimeException empty = assertThrows(StatusRuntimeException.class,
                    () -> pixy.grpc().consumeNAck(consume));
            assertEquals(Status.Code.NOT_FOUND, empty.getStatus().getCode());
            var rs = pixy.post("/topics/" + topic + "/messages?sync", "text/plain", "via-" + name);
            assertEquals(200, rs.statusCode(), rs.body());
            pixy.grpc().produce(ProdRq.newBuilder().setTopic(topic)
                    .setMessage(ByteString.copyFromUtf8("grpc-via-" + name)).build());
            assertEquals("via-" + name, pixy.grpc().consumeNAck(consume).getMessage().toStringUtf8());
            assertEquals("grpc-via-" + name, pixy.grpc().consumeNAck(consume).getMessage().toStringUtf8());
        }
        Properties p = new Properties();
        p.put("bootstrap.servers", broker.bootstrapServers());
        try (KafkaConsumer<byte[], byte[]> plain = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            plain.assign(List.of(tp));
            plain.seekToBeginning(List.of(tp));
            List<String> seen = new java.util.ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (seen.size() < 2 && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : plain.poll(Duration.ofMillis(500))) {
                    seen.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
            assertEquals(List.of("via-" + name, "grpc-via-" + name), seen);
        }
    }
}
