package io.kafkapixy.consumer;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

import io.kafkapixy.config.ConsumerConfig;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Maps the original's {@code consumer} keys onto the settings of a group's {@code KafkaConsumer}. */
public final class ConsumerSettings {

    /**
     * Kafka's default {@code max.poll.interval.ms}, set explicitly: it is also the rebalance timeout, which bounds how
     * long a revoked partition may wait for acks ({@link KafkaMembership#REBALANCE_MARGIN}).
     */
    static final Duration MAX_POLL_INTERVAL = Duration.ofMinutes(5);
    /**
     * The most one fetch response may carry over all its partitions. kafka-clients reads each response into one array:
     * at Kafka's default (50 MiB, with 1 MiB per partition) those arrays were humongous objects for G1 (half a region
     * or more), and in the consume benchmark they caused a third of the proxy's collections and most of its 10–35 ms
     * pauses. 480 KiB stays under half of G1's smallest region (1 MiB) with room for the response's headers; smaller
     * caps made a busy topic that shares its group with idle ones wait more often for the fetch in flight. Kafka still
     * returns a larger first batch whole, so bigger messages keep flowing.
     */
    static final int FETCH_MAX_BYTES = 480 * 1024;

    /**
     * The most records one share consumer acquires per poll. Each fetch costs the consumer and the broker about the
     * same whatever it brings (its network thread's reads and writes were most of a share consumer's CPU), so a batch
     * spreads that cost over its records and one poll serves a burst of clients at once; a record acquired for no
     * client waits here (its lock renewed) for the next one, and goes back to the broker, one delivery attempt spent,
     * only when no client asked for it during {@code subscription_timeout}. Measured with 16 clients: 32 gave 0.41 to
     * 0.45 of a classic group's rate, 128 gave 0.72 (docs/performance.md). The brokers lock at most 2,000 records of a
     * partition at once ({@code share.partition.max.record.locks}): 16 consumers on one partition share them.
     */
    public static final int SHARE_BATCH = 128;

    private ConsumerSettings() {
    }

    /** Makes a group's {@code KafkaConsumer}: {@code kafkaCommon} (brokers, security) with {@link #of}. */
    static Function<String, Consumer<byte[], byte[]>> classicFactory(ConsumerConfig config,
                                                                    Map<String, Object> kafkaCommon) {
        return factory(kafkaCommon, group -> of(config, group), KafkaConsumer::new);
    }

    /** Makes a share group's {@code KafkaShareConsumer}: {@code kafkaCommon} with {@link #share}. */
    static Function<String, ShareConsumer<byte[], byte[]>> shareFactory(ConsumerConfig config,
                                                                       Map<String, Object> kafkaCommon) {
        return factory(kafkaCommon, group -> share(config, group), KafkaShareConsumer::new);
    }

    private static <C> Function<String, C> factory(Map<String, Object> kafkaCommon,
                                                   Function<String, Map<String, Object>> own,
                                                   Function<Map<String, Object>, C> make) {
        Map<String, Object> common = Map.copyOf(kafkaCommon);
        return group -> {
            Map<String, Object> settings = new HashMap<>(common);
            settings.putAll(own.apply(group));
            return make.apply(settings);
        };
    }

    static Map<String, Object> of(ConsumerConfig c, String group) {
        Map<String, Object> s = either(c, group);
        // Offsets are ours: the tracker commits them with the sparse-ack metadata.
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // Initial positions are set explicitly (see InitialOffset); this only applies when a fetch falls off the log
        // (expired segments), where the original restarts at the oldest available offset.
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // Partitions that do not move keep flowing during a rebalance.
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                CooperativeStickyAssignor.class.getName());
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG,
                (int) MAX_POLL_INTERVAL.toMillis());
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
                (int) c.sessionTimeout().toMillis());
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
                (int) heartbeatInterval(c.sessionTimeout()).toMillis());
        return s;
    }

    /** What a group's consumer of either kind is given: its group, byte arrays, the fetch limits, no client meters. */
    private static Map<String, Object> either(ConsumerConfig c, String group) {
        Map<String, Object> s = new HashMap<>();
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_ID_CONFIG, group);
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, c.fetchMaxBytes());
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
                (int) Math.max(1, c.fetchMaxWait().toMillis()));
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.FETCH_MAX_BYTES_CONFIG, FETCH_MAX_BYTES);
        // A member per group, and an instance may serve hundreds of groups: no JMX bean per client metric (the
        // proxy's own meters are on /metrics) and no client telemetry pushed to the brokers. Registering the beans
        // was a tenth of a new group's CPU and kept the platform MBean server's lock busy while groups joined.
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.METRIC_REPORTER_CLASSES_CONFIG, "");
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.ENABLE_METRICS_PUSH_CONFIG, false);
        return s;
    }

    /**
     * The settings of a share group's consumer: explicit acknowledgement, at most {@link #SHARE_BATCH} records per
     * poll, the fetch limits of the classic consumer. The group's session timeout and heartbeats are the broker's group
     * settings.
     */
    static Map<String, Object> share(ConsumerConfig c, String group) {
        Map<String, Object> s = either(c, group);
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit");
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.MAX_POLL_RECORDS_CONFIG, SHARE_BATCH);
        // batch_optimized (kafka-clients' default) may acquire a producer's whole batch for one consumer: records
        // locked where no client may be waiting
        s.put(org.apache.kafka.clients.consumer.ConsumerConfig.SHARE_ACQUIRE_MODE_CONFIG, "record_limit");
        return s;
    }

    /**
     * A fifth of the session timeout (Kafka's defaults keep a fifteenth, 3 s of 45 s): the survivors of a crash learn
     * of the rebalance from their next heartbeat's answer, so a dead member's partitions move within
     * {@code session_timeout} plus one heartbeat plus the join (at the 10 s default, 12 s and the join), and a member
     * misses four heartbeats before it is dropped.
     */
    static Duration heartbeatInterval(Duration sessionTimeout) {
        return sessionTimeout.dividedBy(5);
    }
}
