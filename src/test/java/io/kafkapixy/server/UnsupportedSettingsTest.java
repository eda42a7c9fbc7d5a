package io.kafkapixy.server;

import java.util.List;
import java.util.Map;

import io.kafkapixy.Application;
import io.kafkapixy.config.KafkaConfig;
import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.config.ProxyConfig;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Settings that are accepted in files but not wired yet stop startup, rather than silently doing something else. */
class UnsupportedSettingsTest {

    @Test
    void tlsToKafkaIsRefusedRatherThanConnectingInPlaintext() {
        ProxyConfig p = RunningPixy.proxy(TestKafka.get().bootstrap());
        KafkaConfig k = p.kafka();
        ProxyConfig tls = p.withKafka(new KafkaConfig(k.seedPeers(), k.version(), true, "", "", "", false));

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Application.start(config(tls)));

        assertEquals("kafka.tls and net.sasl are not supported yet by this version", e.getMessage());
    }

    private static PixyConfig config(ProxyConfig proxy) {
        PixyConfig base = RunningPixy.config(TestKafka.get().bootstrap());
        return new PixyConfig(base.grpcAddr(), base.tcpAddr(), "", "default", Map.of("default", proxy), base.tls(),
                List.copyOf(base.logging()));
    }
}
