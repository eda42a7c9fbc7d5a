package io.kafkapixy.consumer;

import java.time.Duration;
import java.util.Map;

import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConsumerSettingsTest {

    @Test
    void aCrashedMembersPartitionsMoveWithinTheOriginalsFifteenSecondsByDefault() {
        Map<String, Object> s = ConsumerSettings.of(ConsumerConfig.DEFAULT, "g");

        int session = (int) s.get(org.apache.kafka.clients.consumer.ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG);
        int heartbeat = (int) s.get(org.apache.kafka.clients.consumer.ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);
        assertEquals(10_000, session);
        assertEquals(2_000, heartbeat);
        assertTrue(session + heartbeat < 15_000, "the coordinator drops the member, a survivor hears of it");
    }

    @Test
    void theSessionTimeoutIsConfigurableAndTheHeartbeatFollowsIt() {
        ConsumerConfig d = new ConsumerSettingsBuilder().build();
        ConsumerConfig c = d.with(ConsumerConfig.SESSION_TIMEOUT, Duration.ofSeconds(6));

        Map<String, Object> s = ConsumerSettings.of(c, "g");

        assertEquals(6_000, s.get(org.apache.kafka.clients.consumer.ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        assertEquals(1_200, s.get(org.apache.kafka.clients.consumer.ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG));
        assertEquals("g", s.get(org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_ID_CONFIG));
    }

    @Test
    void aGroupsConsumerRegistersNoJmxBeansAndPushesNoTelemetry() {
        Map<String, Object> s = ConsumerSettings.of(ConsumerConfig.DEFAULT, "g");

        assertEquals("", s.get(org.apache.kafka.clients.consumer.ConsumerConfig.METRIC_REPORTER_CLASSES_CONFIG));
        assertEquals(false, s.get(org.apache.kafka.clients.consumer.ConsumerConfig.ENABLE_METRICS_PUSH_CONFIG));
    }
}
