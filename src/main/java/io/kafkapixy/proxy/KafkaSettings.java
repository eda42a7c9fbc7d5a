package io.kafkapixy.proxy;

import java.util.HashMap;
import java.util.Map;

import io.kafkapixy.config.KafkaConfig;
import io.kafkapixy.config.ProxyConfig;
import io.kafkapixy.config.SaslConfig;
import io.kafkapixy.security.ClientTls;
import io.kafkapixy.security.KafkaSslEngineFactory;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/** Settings every kafka-clients client of one cluster shares: brokers, client id, timeouts, TLS and SASL. */
final class KafkaSettings {

    private KafkaSettings() {
    }

    /**
     * @throws IllegalArgumentException when {@code kafka.tls} is on and its PEM files cannot be used (the original's
     *                                  texts)
     */
    static Map<String, Object> common(ProxyConfig config) {
        Map<String, Object> s = new HashMap<>();
        s.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, String.join(",", config.kafka().seedPeers()));
        s.put(CommonClientConfigs.CLIENT_ID_CONFIG, config.clientId());
        long dial = config.net().dialTimeout().toMillis();
        if (dial > 0) {
            s.put(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, dial);
            s.put(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, Math.max(dial, 30_000));
        }
        KafkaConfig k = config.kafka();
        SaslConfig sasl = config.net().sasl();
        SecurityProtocol protocol = k.tls()
                ? (sasl.enable() ? SecurityProtocol.SASL_SSL : SecurityProtocol.SSL)
                : (sasl.enable() ? SecurityProtocol.SASL_PLAINTEXT : SecurityProtocol.PLAINTEXT);
        s.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, protocol.name);
        if (k.tls()) {
            s.put(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG, KafkaSslEngineFactory.class);
            s.put(KafkaSslEngineFactory.CONFIG, ClientTls.load(k.caCertificateFile(), k.clientCertificateFile(),
                    k.clientKeyFile(), k.insecure()));
        }
        if (sasl.enable()) {
            s.put(SaslConfigs.SASL_MECHANISM, sasl.mechanism());
            String module = sasl.mechanism().equals("PLAIN")
                    ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                    : "org.apache.kafka.common.security.scram.ScramLoginModule";
            s.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=" + jaasQuoted(sasl.user())
                                                + " password=" + jaasQuoted(sasl.password()) + ";");
        }
        return s;
    }

    /**
     * A JAAS option value: double-quoted, with {@code \}, {@code "} and line breaks escaped (Kafka's JaasConfig reads
     * it with a StreamTokenizer, which ends a quoted string at a line break and turns these escapes back).
     */
    static String jaasQuoted(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")
                .replace("\r", "\\r") + "\"";
    }
}
