package io.kafkapixy.producer;

import java.time.Duration;
import java.util.Map;

import io.kafkapixy.config.NetConfig;
import io.kafkapixy.config.ProducerConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How the original's {@code producer} keys become kafka-clients settings (the mapping table in docs/compatibility.md). */
class ProducerSettingsTest {

    @Test
    void theDefaultsBatchWithoutWaitingForFlushFrequency() {
        Map<String, Object> s = ProducerSettings.of(ProducerConfig.DEFAULT, NetConfig.DEFAULT);

        assertEquals(1, s.get("linger.ms"));
        assertEquals("all", s.get("acks"));
        assertEquals(false, s.get("enable.idempotence"));
        assertEquals("snappy", s.get("compression.type"));
        assertEquals(128 * 1024, s.get("batch.size"));
        assertEquals(6, s.get("retries"));
        assertEquals(100L, s.get("retry.backoff.ms"));
        assertEquals(10_000L, s.get("retry.backoff.max.ms"));
        assertEquals(10_000, s.get("request.timeout.ms"));
        assertEquals(1_000_000 + 64 * 1024, s.get("max.request.size"));
        assertEquals(30_000L, s.get("max.block.ms"));
    }

    @Test
    void aFlushFrequencyWrittenInTheConfigFileIsHonouredAsLinger() {
        ProducerConfig p = ProducerConfig.DEFAULT.with(ProducerConfig.COMPRESSION, ProducerConfig.Compression.LZ4)
                .with(ProducerConfig.FLUSH_BYTES, 0)
                .with(ProducerConfig.FLUSH_FREQUENCY, Duration.ofMillis(250))
                .with(ProducerConfig.RETRY_BACKOFF, Duration.ofMillis(50))
                .with(ProducerConfig.RETRY_MAX, 3)
                .with(ProducerConfig.REQUIRED_ACKS, ProducerConfig.RequiredAcks.WAIT_FOR_LOCAL)
                .with(ProducerConfig.TIMEOUT, Duration.ZERO);

        Map<String, Object> s = ProducerSettings.of(p, NetConfig.DEFAULT);

        assertEquals(250, s.get("linger.ms"));
        assertEquals("1", s.get("acks"));
        assertEquals(false, s.get("enable.idempotence"));
        assertEquals("lz4", s.get("compression.type"));
        assertEquals(16 * 1024, s.get("batch.size"));
        assertEquals(50L, s.get("retry.backoff.ms"));
        assertEquals(50L, s.get("retry.backoff.max.ms"));
        assertEquals(30_000, s.get("request.timeout.ms"));
    }

    @Test
    void noResponseMeansAcksZero() {
        ProducerConfig p = ProducerConfig.DEFAULT.with(ProducerConfig.COMPRESSION, ProducerConfig.Compression.NONE)
                .with(ProducerConfig.REQUIRED_ACKS, ProducerConfig.RequiredAcks.NO_RESPONSE);

        Map<String, Object> s = ProducerSettings.of(p, NetConfig.DEFAULT);

        assertEquals("0", s.get("acks"));
        assertEquals("none", s.get("compression.type"));
    }
}
