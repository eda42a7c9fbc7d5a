package io.kafkapixy.security;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import com.google.protobuf.ByteString;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.config.ServerTlsConfig;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestCerts;
import io.kafkapixy.testing.TestCerts.Issued;
import io.kafkapixy.testing.TestCerts.KeyFormat;
import io.kafkapixy.testing.TestKafka;
import mailgun.kafkapixy.KafkaPixyGrpc;
import mailgun.kafkapixy.ProdRq;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Server TLS on both APIs from the original's PEM keys, and mutual TLS with {@code tls.client_ca_path}: a client
 * certificate from that CA is required; none, one from another CA, or an expired one is refused, and a refused
 * client's message is not written. Kafka (read directly) is the witness of what was written.
 */
class ServerTlsTest {

    @TempDir
    static Path dir;
    private static TestKafka kafka;
    private static TestCerts certs;
    private static Issued ca;
    private static Issued otherCa;
    private static RunningPixy tlsOnly;
    private static RunningPixy mutual;
    private static String topic;

    @BeforeAll
    static void start() {
        kafka = TestKafka.get();
        topic = kafka.createTopic(TestKafka.uniqueTopic("tls"), 1);
        certs = new TestCerts(dir);
        ca = certs.ca("ca");
        otherCa = certs.ca("other-ca");
        // the server key as `openssl genrsa` writes it: PKCS#1, used as is
        Issued server = certs.server(ca, "server", KeyFormat.PKCS1_RSA);
        PixyConfig base = RunningPixy.config(kafka.bootstrap());
        ServerTlsConfig serverTls = ServerTlsConfig.NONE
                .with(ServerTlsConfig.CERTIFICATE_PATH, server.certFile().toString())
                .with(ServerTlsConfig.KEY_PATH, server.keyFile().toString());
        tlsOnly = RunningPixy.start(base.withTls(serverTls));
        mutual = RunningPixy.start(base.withTls(serverTls.with(ServerTlsConfig.CLIENT_CA_PATH,
                ca.certFile().toString())));
    }

    @AfterAll
    static void stop() {
        if (tlsOnly != null) {
            tlsOnly.close();
        }
        if (mutual != null) {
            mutual.close();
        }
    }

    @Test
    void restAndGrpcServeOverTlsWithTheOriginalsTwoKeys() throws Exception {
        long before = end();

        HttpResponse<String> rs = rest(tlsOnly, sslContext(ca.certificate(), null), "rest-over-tls");
        assertEquals(200, rs.statusCode(), rs.body());
        grpc(tlsOnly, TlsChannelCredentials.newBuilder().trustManager(ca.certFile().toFile()).build(),
                "grpc-over-tls");

        assertEquals(before + 2, end());
        var written = kafka.readFrom(topic, 0, before, 2);
        assertEquals("rest-over-tls", new String(written.get(0).value(), StandardCharsets.UTF_8));
        assertEquals("grpc-over-tls", new String(written.get(1).value(), StandardCharsets.UTF_8));
    }

    @Test
    void aClientThatDoesNotTrustTheServersCaIsRefusedByItsOwnSide() {
        assertThrows(IOException.class, () -> rest(tlsOnly, sslContext(otherCa.certificate(), null), "never"));
    }

    @Test
    void mutualTlsTakesAClientCertificateFromTheConfiguredCa() throws Exception {
        Issued client = certs.client(ca, "good-client", KeyFormat.PKCS8_EC);
        long before = end();

        HttpResponse<String> rs = rest(mutual, sslContext(ca.certificate(), client), "mtls-rest");
        assertEquals(200, rs.statusCode(), rs.body());
        grpc(mutual, TlsChannelCredentials.newBuilder().trustManager(ca.certFile().toFile())
                .keyManager(client.certFile().toFile(), client.keyFile().toFile()).build(), "mtls-grpc");

        assertEquals(before + 2, end());
    }

    @Test
    void mutualTlsRefusesNoCertificateAnotherCasAndAnExpiredOne() throws Exception {
        Issued foreign = certs.client(otherCa, "foreign-client", KeyFormat.PKCS8_EC);
        Issued expired = certs.expiredClient(ca, "expired-client");
        long before = end();

        assertThrows(IOException.class, () -> rest(mutual, sslContext(ca.certificate(), foreign), "foreign"));
        assertThrows(IOException.class, () -> rest(mutual, sslContext(ca.certificate(), expired), "expired"));
        assertThrows(IOException.class, () -> rest(mutual, sslContext(ca.certificate(), null), "no-cert"));
        for (Issued bad : new Issued[] {foreign, expired}) {
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> grpc(mutual,
                    TlsChannelCredentials.newBuilder().trustManager(ca.certFile().toFile())
                            .keyManager(bad.certFile().toFile(), bad.keyFile().toFile()).build(), "refused"));
            assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());
        }
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> grpc(mutual,
                TlsChannelCredentials.newBuilder().trustManager(ca.certFile().toFile()).build(), "no-cert"));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());

        assertEquals(before, end(), "nothing from a refused client reaches Kafka");
        // and the server still serves good clients
        Issued good = certs.client(ca, "good-after", KeyFormat.SEC1_EC);
        assertEquals(200, rest(mutual, sslContext(ca.certificate(), good), "after").statusCode());
    }

    private static long end() {
        return kafka.endOffsets(topic, 1).get(0);
    }

    private static HttpResponse<String> rest(RunningPixy pixy, SSLContext ssl, String value) throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(ssl)
                .connectTimeout(Duration.ofSeconds(10)).build();
        try (client) {
            return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + pixy.restPort()
                                                                 + "/topics/" + topic + "/messages?sync"))
                    .timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "text/plain")
                    .POST(HttpRequest.BodyPublishers.ofString(value)).build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private static void grpc(RunningPixy pixy, io.grpc.ChannelCredentials credentials, String value)
            throws InterruptedException {
        ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1",
                pixy.app().server().grpcPort().orElseThrow(), credentials).overrideAuthority("localhost").build();
        try {
            KafkaPixyGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                    .produce(ProdRq.newBuilder().setTopic(topic).setMessage(ByteString.copyFromUtf8(value)).build());
        } finally {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** A JDK client context (no project code): trusts {@code ca}, presents {@code client} when given. */
    static SSLContext sslContext(X509Certificate ca, Issued client) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (client != null) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            PrivateKey key = client.key();
            keys.setKeyEntry("client", key, new char[0], new X509Certificate[] {client.certificate()});
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, new char[0]);
        }
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return ssl;
    }

}
