package io.kafkapixy.security;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManager;

/**
 * What both API servers present and, for mutual TLS, which CAs their clients' certificates must come from: the
 * original's {@code tls.certificate_path} / {@code tls.key_path} (PEM) and this project's {@code tls.client_ca_path}.
 *
 * @param clientCas empty: no client certificate asked for
 */
public record ServerTls(PrivateKey key, List<X509Certificate> chain, List<X509Certificate> clientCas) {

    public ServerTls {
        chain = List.copyOf(chain);
        clientCas = List.copyOf(clientCas);
    }

    /**
     * @param clientCaFile empty for no client certificates
     * @throws IllegalArgumentException {@code invalid tls configuration: "tls.certificate_path: <why>"} and the like
     */
    public static ServerTls load(String certFile, String keyFile, String clientCaFile) {
        List<X509Certificate> chain;
        try {
            chain = PemFiles.certificates(Path.of(certFile));
        } catch (PemFiles.PemException e) {
            throw invalid("tls.certificate_path: " + e.getMessage());
        }
        PrivateKey key;
        try {
            key = PemFiles.privateKey(Path.of(keyFile));
        } catch (PemFiles.PemException e) {
            throw invalid("tls.key_path: " + e.getMessage());
        }
        try {
            PemFiles.checkPair(chain.getFirst(), key, Path.of(certFile), Path.of(keyFile));
        } catch (PemFiles.PemException e) {
            throw invalid("tls.certificate_path and tls.key_path are not a valid certificate pair");
        }
        List<X509Certificate> cas = List.of();
        if (!clientCaFile.isEmpty()) {
            try {
                cas = PemFiles.certificates(Path.of(clientCaFile));
            } catch (PemFiles.PemException e) {
                throw invalid("tls.client_ca_path: " + e.getMessage());
            }
        }
        return new ServerTls(key, chain, cas);
    }

    /** The original's wording for a TLS file it cannot use, for the server's files and Kafka's alike. */
    static IllegalArgumentException invalid(String detail) {
        return new IllegalArgumentException("invalid tls configuration: \"" + detail + "\"");
    }

    /** Key managers presenting {@link #key} with {@link #chain}. */
    public KeyManager[] keyManagers() {
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            char[] password = new char[0];
            ks.setKeyEntry("server", key, password, chain.toArray(X509Certificate[]::new));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, password);
            return kmf.getKeyManagers();
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot use the server's TLS key: " + e.getMessage(), e);
        }
    }

    /** Trust managers for client certificates from {@link #clientCas} (the JDK's PKIX checks). */
    public TrustManager[] trustManagers() {
        try {
            return ClientTls.trustManagers(clientCas);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot use tls.client_ca_path: " + e.getMessage(), e);
        }
    }

    /** Never the key itself. */
    @Override
    public String toString() {
        return "ServerTls[certificate=" + chain.getFirst().getSubjectX500Principal().getName() + ", client CAs="
               + clientCas.size() + "]";
    }
}
