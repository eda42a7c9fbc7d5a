package io.kafkapixy.config;

/**
 * Top-level {@code tls}: server TLS for gRPC and HTTP/TCP, enabled when both paths are set (the original's keys, PEM
 * files). {@code clientCaPath} is new in this project: a PEM CA bundle; when set, clients must present a certificate
 * issued by one of its CAs (mutual TLS).
 */
public record ServerTlsConfig(String certificatePath, String keyPath, String clientCaPath) {

    public static final ServerTlsConfig NONE = new ServerTlsConfig("", "", "");

    /** The original's two keys, no client certificates. */
    public ServerTlsConfig(String certificatePath, String keyPath) {
        this(certificatePath, keyPath, "");
    }

    public boolean enabled() {
        return !certificatePath.isEmpty() && !keyPath.isEmpty();
    }

    public boolean clientAuth() {
        return enabled() && !clientCaPath.isEmpty();
    }
}
