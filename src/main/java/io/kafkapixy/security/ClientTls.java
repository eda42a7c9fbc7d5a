package io.kafkapixy.security;

import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * What this proxy presents and trusts as a TLS client of Kafka, read from the original's PEM keys
 * ({@code kafka.ca_certificate_file}, {@code client_certificate_file}, {@code client_key_file}, {@code insecure}),
 * with the original's error texts. No CA file means the JVM's default trust store (Go uses the system's roots).
 */
public record ClientTls(List<X509Certificate> trusted, Optional<PrivateKey> key, List<X509Certificate> chain,
                        boolean insecure) {

    public ClientTls {
        trusted = List.copyOf(trusted);
        chain = List.copyOf(chain);
    }

    /**
     * @param caFile   empty for the default trust store
     * @param certFile with {@code keyFile}, the client certificate; used only when both are set, as the original
     * @throws IllegalArgumentException with the original's text, e.g. {@code invalid tls configuration:
     *                                  "kafka.ca_cert_file: open /x: no such file or directory"}
     */
    public static ClientTls load(String caFile, String certFile, String keyFile, boolean insecure) {
        List<X509Certificate> trusted = List.of();
        if (!caFile.isEmpty()) {
            try {
                trusted = PemFiles.certificates(Path.of(caFile));
            } catch (PemFiles.PemException e) {
                throw ServerTls.invalid(e.getMessage().startsWith("open ")
                        ? "kafka.ca_cert_file: " + e.getMessage()
                        : "kafka.ca_cert_file does not appear to be a valid CA certificate");
            }
        }
        Optional<PrivateKey> key = Optional.empty();
        List<X509Certificate> chain = List.of();
        if (!certFile.isEmpty() && !keyFile.isEmpty()) {
            try {
                chain = PemFiles.certificates(Path.of(certFile));
            } catch (PemFiles.PemException e) {
                throw ServerTls.invalid("kafka.client_cert_file: " + e.getMessage());
            }
            PrivateKey k;
            try {
                k = PemFiles.privateKey(Path.of(keyFile));
            } catch (PemFiles.PemException e) {
                throw ServerTls.invalid("kafka.client_cert_key_file: " + e.getMessage());
            }
            try {
                PemFiles.checkPair(chain.getFirst(), k, Path.of(certFile), Path.of(keyFile));
            } catch (PemFiles.PemException e) {
                throw ServerTls.invalid("kafka.client_cert_file and kafka.client_cert_key_file are not a valid "
                                        + "certificate pair");
            }
            key = Optional.of(k);
        }
        return new ClientTls(trusted, key, chain, insecure);
    }

    /** Never the key itself: this record travels in kafka-clients' config maps. */
    @Override
    public String toString() {
        return "ClientTls[trusted=" + trusted.size() + " CA certificate(s), client certificate="
               + (key.isPresent() ? chain.getFirst().getSubjectX500Principal().getName() : "none")
               + ", insecure=" + insecure + "]";
    }

    /** A context for client connections: our certificate if any, the trusted CAs (all, when insecure). */
    public SSLContext sslContext() {
        try {
            KeyManager[] keyManagers = null;
            if (key.isPresent()) {
                KeyStore ks = KeyStore.getInstance("PKCS12");
                ks.load(null, null);
                char[] password = new char[0];
                ks.setKeyEntry("client", key.get(), password, chain.toArray(X509Certificate[]::new));
                KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(ks, password);
                keyManagers = kmf.getKeyManagers();
            }
            TrustManager[] trustManagers = insecure ? new TrustManager[] {new TrustAll()} : trustManagers(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers, trustManagers, null);
            return context;
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("cannot build the TLS context: " + e.getMessage(), e);
        }
    }

    /** Trust managers for these CAs; none given means the JVM's default trust store. */
    static TrustManager[] trustManagers(List<X509Certificate> cas) throws GeneralSecurityException,
            java.io.IOException {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        if (cas.isEmpty()) {
            tmf.init((KeyStore) null);
        } else {
            KeyStore ts = KeyStore.getInstance("PKCS12");
            ts.load(null, null);
            for (int i = 0; i < cas.size(); i++) {
                ts.setCertificateEntry("ca-" + i, cas.get(i));
            }
            tmf.init(ts);
        }
        return tmf.getTrustManagers();
    }

    /** {@code kafka.insecure}: Go's InsecureSkipVerify, any certificate and any host name. */
    private static final class TrustAll extends X509ExtendedTrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
