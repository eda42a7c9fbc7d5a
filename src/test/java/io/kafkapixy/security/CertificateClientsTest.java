package io.kafkapixy.security;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.ByteString;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.kafkapixy.config.AuthConfig;
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
 * With mutual TLS, a client certificate whose subject is a named client's acts as that client, over REST and gRPC;
 * one from the same CA that is no client's is known but may do nothing (403 / PERMISSION_DENIED). Certificates made by
 * the test; Kafka, read directly, is the witness of what was written.
 */
class CertificateClientsTest {

    @TempDir
    static Path dir;
    private static TestKafka kafka;
    private static TestCerts certs;
    private static Issued ca;
    private static RunningPixy pixy;
    private static String topic;

    @BeforeAll
    static void start() throws Exception {
        kafka = TestKafka.get();
        topic = kafka.createTopic(TestKafka.uniqueTopic("certs"), 1);
        certs = new TestCerts(dir);
        ca = certs.ca("ca");
        Issued server = certs.server(ca, "server", KeyFormat.PKCS8_EC);
        Path clients = Files.writeString(dir.resolve("clients.yaml"), """
                clients:
                  - name: orders
                    cert_subjects: ["CN=orders-service"]
                    allow:
                      - {operations: [write], topics: [%s]}
                """.formatted(topic));
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap())
                .withTls(ServerTlsConfig.NONE.with(ServerTlsConfig.CERTIFICATE_PATH, server.certFile().toString())
                        .with(ServerTlsConfig.KEY_PATH, server.keyFile().toString())
                        .with(ServerTlsConfig.CLIENT_CA_PATH, ca.certFile().toString()))
                .withAuth(AuthConfig.NONE.with(AuthConfig.CLIENTS_FILE, clients.toString())));
    }

    @AfterAll
    static void stop() {
        if (pixy != null) {
            pixy.close();
        }
    }

    @Test
    void theNamedClientsCertificateActsAsItOverRest() throws Exception {
        long before = end();

        HttpResponse<String> mine = rest(certs.client(ca, "orders-service", KeyFormat.PKCS8_EC));
        HttpResponse<String> stranger = rest(certs.client(ca, "stranger", KeyFormat.PKCS8_EC));

        assertEquals(200, mine.statusCode(), mine.body());
        assertEquals(403, stranger.statusCode(), stranger.body());
        assertEquals(before + 1, end(), "only the named client's message");
    }

    @Test
    void theNamedClientsCertificateActsAsItOverGrpc() throws Exception {
        long before = end();

        grpc(certs.client(ca, "orders-service", KeyFormat.SEC1_EC));
        StatusRuntimeException stranger = assertThrows(StatusRuntimeException.class,
                () -> grpc(certs.client(ca, "stranger-grpc", KeyFormat.SEC1_EC)));

        assertEquals(Status.Code.PERMISSION_DENIED, stranger.getStatus().getCode());
        assertEquals(before + 1, end(), "only the named client's message");
    }

    private static long end() {
        return kafka.endOffsets(topic, 1).get(0);
    }

    private static HttpResponse<String> rest(Issued client) throws Exception {
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .sslContext(ServerTlsTest.sslContext(ca.certificate(), client))
                .connectTimeout(Duration.ofSeconds(10)).build()) {
            return http.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + pixy.restPort() + "/topics/"
                    + topic + "/messages?sync")).timeout(Duration.ofSeconds(30)).header("Content-Type", "text/plain")
                    .POST(HttpRequest.BodyPublishers.ofString("m")).build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private static void grpc(Issued client) throws Exception {
        ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1",
                pixy.app().server().grpcPort().orElseThrow(), TlsChannelCredentials.newBuilder()
                        .trustManager(ca.certFile().toFile())
                        .keyManager(client.certFile().toFile(), client.keyFile().toFile()).build())
                .overrideAuthority("localhost").build();
        try {
            KafkaPixyGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                    .produce(ProdRq.newBuilder().setTopic(topic).setMessage(ByteString.copyFromUtf8("m")).build());
        } finally {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }
}
