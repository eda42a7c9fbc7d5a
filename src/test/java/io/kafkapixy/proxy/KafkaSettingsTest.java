package io.kafkapixy.proxy;

import java.util.List;
import java.util.Map;

import javax.security.auth.login.AppConfigurationEntry;

import io.kafkapixy.config.ProxyConfig;
import io.kafkapixy.config.SaslConfig;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.JaasContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How the original's Kafka keys become kafka-clients settings. */
class KafkaSettingsTest {

    @ParameterizedTest
    @ValueSource(strings = {"plain", "with \"quotes\" and \\ backslashes", "line\nbreak\r\nand=equals;semi", "",
                            "ünïcödé"})
    void saslCredentialsReachKafkasJaasParserUnchanged(String password) {
        Map<String, Object> s = KafkaSettings.common(sasl(SaslConfig.DEFAULT.with(SaslConfig.ENABLE, true)
                .with(SaslConfig.USER, "us\"er").with(SaslConfig.PASSWORD, password)
                .with(SaslConfig.MECHANISM, "SCRAM-SHA-512")));

        AppConfigurationEntry entry = JaasContext.loadClientContext(Map.of(SaslConfigs.SASL_JAAS_CONFIG,
                new Password((String) s.get(SaslConfigs.SASL_JAAS_CONFIG)))).configurationEntries().getFirst();

        assertEquals("org.apache.kafka.common.security.scram.ScramLoginModule", entry.getLoginModuleName());
        assertEquals(Map.of("username", "us\"er", "password", password), entry.getOptions());
        assertEquals("SCRAM-SHA-512", s.get(SaslConfigs.SASL_MECHANISM));
        assertEquals("SASL_PLAINTEXT", s.get("security.protocol"));
    }

    @Test
    void noSaslNoTlsIsPlaintext() {
        Map<String, Object> s = KafkaSettings.common(ProxyConfig.defaults("c"));
        assertEquals("PLAINTEXT", s.get("security.protocol"));
        assertEquals(null, s.get(SaslConfigs.SASL_JAAS_CONFIG));
        assertEquals(List.of("localhost:9092"), List.of(((String) s.get("bootstrap.servers")).split(",")));
    }

    private static ProxyConfig sasl(SaslConfig sasl) {
        ProxyConfig p = ProxyConfig.defaults("c");
        return p.withNet(p.net().withSasl(sasl));
    }
}
