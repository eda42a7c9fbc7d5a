package io.kafkapixy.config;

import java.util.List;

/** {@code proxies.<name>.kafka}: seed brokers, declared version and TLS to Kafka (PEM files). */
public record KafkaConfig(List<String> seedPeers,
                          String version,
                          boolean tls,
                          String caCertificateFile,
                          String clientCertificateFile,
                          String clientKeyFile,
                          boolean insecure) {

    public static final KafkaConfig DEFAULT =
            new KafkaConfig(List.of("localhost:9092"), "0.10.2.1", false, "", "", "", false);

    public KafkaConfig {
        seedPeers = List.copyOf(seedPeers);
    }

    public KafkaConfig withSeedPeers(List<String> peers) {
        return new KafkaConfig(peers, version, tls, caCertificateFile, clientCertificateFile, clientKeyFile, insecure);
    }
}
