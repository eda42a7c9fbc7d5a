package io.kafkapixy.proxy;

import java.util.HashMap;
import java.util.Map;

import io.kafkapixy.config.ProxyConfig;
import org.apache.kafka.clients.CommonClientConfigs;

/** Settings every kafka-clients client of one cluster shares: brokers, client id, timeouts. */
final class KafkaSettings {

    private KafkaSettings() {
    }

    /**
     * @throws IllegalStateException for TLS or SASL to Kafka, which are not wired yet: connecting in plaintext
     *                               instead would fail with a misleading error, or worse, succeed
     */
    static Map<String, Object> common(ProxyConfig config) {
        if (config.kafka().tls() || config.net().sasl().enable()) {
            throw new IllegalStateException("kafka.tls and net.sasl are not supported yet by this version");
        }
        Map<String, Object> s = new HashMap<>();
        s.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, String.join(",", config.kafka().seedPeers()));
        s.put(CommonClientConfigs.CLIENT_ID_CONFIG, config.clientId());
        long dial = config.net().dialTimeout().toMillis();
        if (dial > 0) {
            s.put(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, dial);
            s.put(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, Math.max(dial, 30_000));
        }
        return s;
    }
}
