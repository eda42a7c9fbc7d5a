package io.kafkapixy.producer;

import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import io.kafkapixy.config.NetConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Maps the original's {@code producer} keys onto kafka-clients producer settings. The mapping is documented in the
 * table of docs/compatibility.md, "Producer settings"; keep the two in step.
 */
public final class ProducerSettings {

    /** linger.ms when {@code flush_frequency} is not in the config file: batch while requests are in flight. */
    static final long DEFAULT_LINGER_MS = 1;
    /**
     * sarama's {@code flush_bytes} is a per-broker threshold; kafka-clients' {@code batch.size} is a buffer per
     * partition with an open batch, so it is capped to keep many busy partitions within {@code buffer.memory}.
     */
    static final int MAX_BATCH_BYTES = 128 * 1024;
    /** Room for record and batch overhead above {@code max_message_bytes}, which we enforce ourselves. */
    static final int REQUEST_OVERHEAD_BYTES = 64 * 1024;

    private ProducerSettings() {
    }

    public static Map<String, Object> of(io.kafkapixy.config.ProducerConfig p, NetConfig net) {
        Map<String, Object> s = new HashMap<>();
        s.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        s.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        s.put(ProducerConfig.ACKS_CONFIG, p.requiredAcks().kafkaAcks());
        // Not idempotent, like the original's sarama producer: an idempotent producer fails whole batches with
        // OutOfOrderSequenceException after leader changes (seen on freshly created partitions), which would drop
        // async messages already answered as accepted; plain retries deliver them (at least once).
        s.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        s.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, p.compression().name().toLowerCase(Locale.ROOT));
        long linger = p.flushFrequencyExplicit() ? p.flushFrequency().toMillis() : DEFAULT_LINGER_MS;
        s.put(ProducerConfig.LINGER_MS_CONFIG, (int) Math.min(linger, Integer.MAX_VALUE));
        int batch = batchBytes(p);
        s.put(ProducerConfig.BATCH_SIZE_CONFIG, batch);
        s.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Math.max(64L << 20, 32L * batch));
        s.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, p.maxMessageBytes() + REQUEST_OVERHEAD_BYTES);
        s.put(ProducerConfig.RETRIES_CONFIG, p.retryMax());
        // sarama waits retry_backoff between retries; kafka-clients backs off exponentially up to a maximum.
        // Starting small keeps the first produce to a new topic fast; retry_backoff stays the ceiling.
        long backoffMax = Math.max(1, p.retryBackoff().toMillis());
        s.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, Math.min(100L, backoffMax));
        s.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, backoffMax);
        long requestTimeout = p.timeout().isZero() ? 30_000 : p.timeout().toMillis();
        s.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(requestTimeout, Integer.MAX_VALUE));
        long delivery = linger + requestTimeout + p.retryMax() * backoffMax;
        s.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.min(Math.max(delivery, 30_000), Integer.MAX_VALUE));
        s.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, positiveMillis(net.dialTimeout(), 30_000));
        return s;
    }

    /** {@code batch.size}: sarama's {@code flush_bytes} within {@link #MAX_BATCH_BYTES}, 16 KiB when unset. */
    static int batchBytes(io.kafkapixy.config.ProducerConfig p) {
        return p.flushBytes() == 0 ? 16 * 1024 : Math.min(p.flushBytes(), MAX_BATCH_BYTES);
    }

    private static long positiveMillis(Duration d, long fallback) {
        return d.isZero() || d.isNegative() ? fallback : d.toMillis();
    }
}
