package io.kafkapixy.security;

import java.security.KeyStore;
import java.util.Map;
import java.util.Set;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

import org.apache.kafka.common.security.auth.SslEngineFactory;

/**
 * kafka-clients' TLS engines from a {@link ClientTls} (the original's PEM files, read once at start) instead of Java
 * key stores. Host names are verified as Go does unless {@code kafka.insecure}. Instantiated by kafka-clients from
 * {@code ssl.engine.factory.class}; the {@link ClientTls} arrives under {@link #CONFIG}.
 */
public final class KafkaSslEngineFactory implements SslEngineFactory {

    /** The config key that carries the {@link ClientTls}. */
    public static final String CONFIG = "kafkapixy.client.tls";

    private ClientTls tls;
    private SSLContext context;

    @Override
    public void configure(Map<String, ?> configs) {
        Object value = configs.get(CONFIG);
        if (!(value instanceof ClientTls t)) {
            throw new IllegalStateException(CONFIG + " is missing from the Kafka client settings");
        }
        this.tls = t;
        this.context = t.sslContext();
    }

    @Override
    public SSLEngine createClientSslEngine(String peerHost, int peerPort, String endpointIdentification) {
        SSLEngine engine = context.createSSLEngine(peerHost, peerPort);
        engine.setUseClientMode(true);
        if (!tls.insecure()) {
            SSLParameters params = engine.getSSLParameters();
            params.setEndpointIdentificationAlgorithm("HTTPS");
            engine.setSSLParameters(params);
        }
        return engine;
    }

    @Override
    public SSLEngine createServerSslEngine(String peerHost, int peerPort) {
        throw new UnsupportedOperationException("client side only");
    }

    @Override
    public boolean shouldBeRebuilt(Map<String, Object> nextConfigs) {
        return nextConfigs.get(CONFIG) != tls;
    }

    @Override
    public Set<String> reconfigurableConfigs() {
        return Set.of();
    }

    @Override
    public KeyStore keystore() {
        return null;
    }

    @Override
    public KeyStore truststore() {
        return null;
    }

    @Override
    public void close() {
    }
}
