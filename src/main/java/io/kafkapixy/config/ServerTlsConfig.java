package io.kafkapixy.config;

/** Top-level {@code tls}: server TLS for gRPC and HTTP/TCP, enabled when both paths are set. */
public record ServerTlsConfig(String certificatePath, String keyPath) {

    public static final ServerTlsConfig NONE = new ServerTlsConfig("", "");

    public boolean enabled() {
        return !certificatePath.isEmpty() && !keyPath.isEmpty();
    }
}
