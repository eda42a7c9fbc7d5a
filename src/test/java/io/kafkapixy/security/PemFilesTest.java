package io.kafkapixy.security;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import io.kafkapixy.testing.TestCerts;
import io.kafkapixy.testing.TestCerts.Issued;
import io.kafkapixy.testing.TestCerts.KeyFormat;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PEM files as deployments have them, and the original's texts for the Kafka TLS files it could not use. */
class PemFilesTest {

    @TempDir
    static Path dir;
    private static TestCerts certs;
    private static Issued ca;

    @BeforeAll
    static void certs() {
        certs = new TestCerts(dir);
        ca = certs.ca("pem-ca");
    }

    @ParameterizedTest
    @EnumSource(KeyFormat.class)
    void everyKeyFormatOpenSslAndGoWriteIsReadAsIs(KeyFormat format) throws Exception {
        Issued c = certs.client(ca, "client-" + format, format);
        String pem = Files.readString(c.keyFile());
        assertTrue(pem.startsWith(switch (format) {
            case PKCS8_EC -> "-----BEGIN PRIVATE KEY-----";
            case SEC1_EC -> "-----BEGIN EC PRIVATE KEY-----";
            case PKCS1_RSA -> "-----BEGIN RSA PRIVATE KEY-----";
        }), pem);

        var key = PemFiles.privateKey(c.keyFile());

        assertEquals(c.key().getAlgorithm(), key.getAlgorithm());
        // signs what the certificate's public key verifies: the same key
        PemFiles.checkPair(c.certificate(), key, c.certFile(), c.keyFile());
    }

    @Test
    void aBundleKeepsEveryCertificateInOrder() throws Exception {
        Issued other = certs.ca("pem-other-ca");
        Path bundle = dir.resolve("bundle.pem");
        Files.writeString(bundle, Files.readString(ca.certFile()) + "\n" + Files.readString(other.certFile()));

        var read = PemFiles.certificates(bundle);

        assertEquals(java.util.List.of(ca.certificate(), other.certificate()), read);
    }

    @Test
    void kafkaTlsFilesFailWithTheOriginalsTexts() throws Exception {
        Issued a = certs.client(ca, "pair-a", KeyFormat.PKCS8_EC);
        Issued b = certs.client(ca, "pair-b", KeyFormat.PKCS8_EC);
        Path garbage = dir.resolve("garbage.pem");
        Files.writeString(garbage, "not a certificate\n");
        String missing = dir.resolve("missing.pem").toString();

        assertEquals("invalid tls configuration: \"kafka.ca_cert_file: open " + missing
                     + ": no such file or directory\"",
                assertThrows(IllegalArgumentException.class,
                        () -> ClientTls.load(missing, "", "", false)).getMessage());
        assertEquals("invalid tls configuration: \"kafka.ca_cert_file does not appear to be a valid CA "
                     + "certificate\"",
                assertThrows(IllegalArgumentException.class,
                        () -> ClientTls.load(garbage.toString(), "", "", false)).getMessage());
        assertEquals("invalid tls configuration: \"kafka.client_cert_file: open " + missing
                     + ": no such file or directory\"",
                assertThrows(IllegalArgumentException.class, () -> ClientTls.load("", missing,
                        a.keyFile().toString(), false)).getMessage());
        assertEquals("invalid tls configuration: \"kafka.client_cert_key_file: open " + missing
                     + ": no such file or directory\"",
                assertThrows(IllegalArgumentException.class, () -> ClientTls.load("", a.certFile().toString(),
                        missing, false)).getMessage());
        assertEquals("invalid tls configuration: \"kafka.client_cert_file and kafka.client_cert_key_file are not a "
                     + "valid certificate pair\"",
                assertThrows(IllegalArgumentException.class, () -> ClientTls.load("", a.certFile().toString(),
                        b.keyFile().toString(), false)).getMessage());
    }

    @Test
    void aConfigNamingUnusableFilesStopsTheStartWithTheClusterAndTheReason() {
        String missing = dir.resolve("nope.pem").toString();
        var p = io.kafkapixy.testing.RunningPixy.proxy("localhost:9092");
        var k = p.kafka();
        var config = io.kafkapixy.testing.RunningPixy.config("localhost:9092").withProxies(java.util.Map.of("default",
                p.withKafka(k.with(io.kafkapixy.config.KafkaConfig.TLS, true)
                        .with(io.kafkapixy.config.KafkaConfig.CA_CERTIFICATE_FILE, missing))));

        var e = assertThrows(io.kafkapixy.config.ConfigException.class,
                () -> io.kafkapixy.config.ConfigLoader.checkSecurityFiles(config));

        assertEquals("invalid config parameter: invalid config, cluster=default: invalid tls configuration: "
                     + "\"kafka.ca_cert_file: open " + missing + ": no such file or directory\"", e.getMessage());
        var tokens = config.withProxies(java.util.Map.of("default", p))
                .withAuth(io.kafkapixy.config.AuthConfig.NONE.with(io.kafkapixy.config.AuthConfig.BEARER_TOKENS_FILE, missing));
        assertEquals("invalid config parameter: auth.bearer_tokens_file: cannot read " + missing
                     + ": NoSuchFileException",
                assertThrows(io.kafkapixy.config.ConfigException.class,
                        () -> io.kafkapixy.config.ConfigLoader.checkSecurityFiles(tokens)).getMessage());
    }

    @Test
    void aClientCertificateIsUsedOnlyWhenItsKeyIsSetToo() {
        Issued a = certs.client(ca, "half", KeyFormat.PKCS8_EC);

        ClientTls tls = ClientTls.load(ca.certFile().toString(), a.certFile().toString(), "", false);

        assertEquals(Optional.empty(), tls.key());
        assertEquals(1, tls.trusted().size());
    }

    @Test
    void theServerKeysAreCheckedTheSameWay() throws Exception {
        Issued s = certs.server(ca, "srv");
        Issued other = certs.server(ca, "srv-other");
        assertEquals("invalid tls configuration: \"tls.certificate_path and tls.key_path are not a valid "
                     + "certificate pair\"",
                assertThrows(IllegalArgumentException.class, () -> ServerTls.load(s.certFile().toString(),
                        other.keyFile().toString(), "")).getMessage());
        Path encrypted = dir.resolve("encrypted.key");
        Files.writeString(encrypted, "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIBvTBXBgkqhkiG9w0BBQ0wSjApBgkqhkiG9w0BBQwwHAQI\n"
                                     + "-----END ENCRYPTED PRIVATE KEY-----\n");
        String text = assertThrows(IllegalArgumentException.class, () -> ServerTls.load(s.certFile().toString(),
                encrypted.toString(), "")).getMessage();
        assertTrue(text.startsWith("invalid tls configuration: \"tls.key_path: "), text);
    }

    @Test
    void noTextOfAKeyShowsInToString() throws Exception {
        Issued c = certs.client(ca, "secretive", KeyFormat.PKCS1_RSA);
        ClientTls tls = ClientTls.load("", c.certFile().toString(), c.keyFile().toString(), false);
        ServerTls server = ServerTls.load(c.certFile().toString(), c.keyFile().toString(), "");
        for (String s : new String[] {tls.toString(), server.toString()}) {
            assertTrue(!s.contains("exponent") && !s.contains("modulus") && s.contains("CN=secretive"), s);
        }
    }
}
