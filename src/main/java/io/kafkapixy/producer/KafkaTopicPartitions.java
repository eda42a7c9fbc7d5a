package io.kafkapixy.producer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Topic partitions from the producer's own metadata, with a fast answer for unknown topics.
 *
 * <p>kafka-clients waits {@code max.block.ms} for a topic that does not exist; the original answers at once.
 * So a topic seen for the first time is looked up with the Admin API: if it does not exist and the brokers do
 * not auto-create topics, it is unknown right away; otherwise the producer's metadata request creates it.
 */
final class KafkaTopicPartitions implements TopicPartitions {

    /** sarama 1.23.1's text for {@code UNKNOWN_TOPIC_OR_PARTITION}, which the original sends to clients. */
    static final String UNKNOWN_TOPIC_TEXT =
            "kafka server: Request was for a topic or partition that does not exist on this broker.";

    private static final long NOTE_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long FRESH_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final Producer<byte[], byte[]> producer;
    private final Admin admin;
    private final Duration adminTimeout;
    /** Topics found, with when their partitions were last looked up ({@link System#nanoTime()}). */
    private final Map<String, Long> known = new ConcurrentHashMap<>();
    private volatile Boolean brokersAutoCreate;

    KafkaTopicPartitions(Producer<byte[], byte[]> producer, Admin admin, Duration adminTimeout) {
        this.producer = producer;
        this.admin = admin;
        this.adminTimeout = adminTimeout;
    }

    @Override
    public List<PartitionInfo> of(String topic) {
        Long seen = known.get(topic);
        if (seen == null && !exists(topic) && !brokersAutoCreate()) {
            throw unknownTopic();
        }
        try {
            List<PartitionInfo> partitions = producer.partitionsFor(topic);
            if (partitions.isEmpty()) {
                throw unknownTopic();
            }
            long now = System.nanoTime();
            // written about once a second per topic, not per message
            if (seen == null || now - seen > NOTE_EVERY_NANOS) {
                known.put(topic, now);
            }
            return partitions;
        } catch (TimeoutException e) {
            known.remove(topic);
            throw unknownTopic();
        }
    }

    @Override
    public boolean known(String topic) {
        return known.containsKey(topic);
    }

    /**
     * Produced to within {@link #FRESH_NANOS}: the producer still has the topic's metadata (it drops a topic's after
     * {@code metadata.max.idle.ms}, 5 minutes, without use), so neither the look-up nor the send waits for a broker.
     */
    @Override
    public boolean fresh(String topic) {
        Long seen = known.get(topic);
        return seen != null && System.nanoTime() - seen < FRESH_NANOS;
    }

    @Override
    public void forget(String topic) {
        known.remove(topic);
    }

    private boolean exists(String topic) {
        try {
            await(admin.describeTopics(List.of(topic)).allTopicNames());
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return false;
            }
            throw internal(e.getCause());
        }
    }

    private boolean brokersAutoCreate() {
        Boolean cached = brokersAutoCreate;
        if (cached != null) {
            return cached;
        }
        try {
            Node node = await(admin.describeCluster().nodes()).iterator().next();
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, node.idString());
            Map<ConfigResource, Config> configs = await(admin.describeConfigs(List.of(broker)).all());
            var entry = configs.get(broker).get("auto.create.topics.enable");
            boolean autoCreate = entry == null || Boolean.parseBoolean(entry.value());
            brokersAutoCreate = autoCreate;
            return autoCreate;
        } catch (ExecutionException e) {
            throw internal(e.getCause());
        }
    }

    /** Waits up to the admin timeout; a timeout or an interrupt is an internal error. */
    private <T> T await(KafkaFuture<T> future) throws ExecutionException {
        try {
            return future.get(adminTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw internal(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw internal(e);
        }
    }

    private static PixyException unknownTopic() {
        return new PixyException(ErrorKind.PRODUCE_UNKNOWN_TOPIC, UNKNOWN_TOPIC_TEXT);
    }

    private static PixyException internal(Throwable cause) {
        return new PixyException(ErrorKind.INTERNAL, "failed to fetch topic metadata: " + cause.getMessage(), cause);
    }
}
