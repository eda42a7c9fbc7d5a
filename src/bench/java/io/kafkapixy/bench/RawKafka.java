package io.kafkapixy.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The benchmark's direct line to Kafka with plain {@code kafka-clients}: topics, end offsets (what landed), group
 * offsets, and the raw producer and consumer the proxy is compared with. Thread-safe; closed by its owner.
 */
final class RawKafka implements AutoCloseable {

    static final int PARTITIONS = 4;

    private final String bootstrap;
    private final Admin admin;

    RawKafka(String bootstrap) {
        this.bootstrap = bootstrap;
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    /** Creates topics of {@link #PARTITIONS} partitions with the cluster's default replication. */
    void createTopics(Collection<String> names) throws ExecutionException, InterruptedException {
        List<NewTopic> topics = new ArrayList<>();
        for (String name : names) {
            topics.add(new NewTopic(name, Optional.of(PARTITIONS), Optional.empty()));
        }
        admin.createTopics(topics).all().get();
    }

    /** Creates one topic of {@code partitions} partitions. */
    void createTopic(String name, int partitions) throws ExecutionException, InterruptedException {
        admin.createTopics(List.of(new NewTopic(name, Optional.of(partitions), Optional.empty()))).all().get();
    }

    /** A share group that starts at the oldest records (share groups start at the newest unless told). */
    void startShareGroupAtBeginning(String group) throws ExecutionException, InterruptedException {
        admin.incrementalAlterConfigs(Map.of(new org.apache.kafka.common.config.ConfigResource(
                org.apache.kafka.common.config.ConfigResource.Type.GROUP, group), List.of(
                new org.apache.kafka.clients.admin.AlterConfigOp(new org.apache.kafka.clients.admin.ConfigEntry(
                        "share.auto.offset.reset", "earliest"),
                        org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET)))).all().get();
    }

    void deleteTopics(Collection<String> names) throws ExecutionException, InterruptedException {
        admin.deleteTopics(names).all().get();
    }

    /** The sum of the topic's end offsets: how many messages landed in it. */
    long endOffsets(String topic) throws ExecutionException, InterruptedException {
        return offsets(topic, OffsetSpec.latest()).values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Commits the oldest offsets for a group that has no members yet, so that the proxy, which starts a new group at
     * the newest offsets, reads the pre-filled topic from its start.
     */
    /** As {@link #startGroupAtBeginning} for a topic of one partition (made by {@link #createTopic}). */
    void startGroupAtBeginningOfOnePartition(String group, String topic)
            throws ExecutionException, InterruptedException {
        admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(0)))
                .all().get();
    }

    void startGroupAtBeginning(String group, String topic) throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> commits = new HashMap<>();
        offsets(topic, OffsetSpec.earliest()).forEach((tp, o) -> commits.put(tp, new OffsetAndMetadata(o)));
        admin.alterConsumerGroupOffsets(group, commits).all().get();
    }

    private Map<TopicPartition, Long> offsets(String topic, OffsetSpec spec)
            throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            request.put(new TopicPartition(topic, p), spec);
        }
        Map<TopicPartition, Long> result = new HashMap<>();
        for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e
                : admin.listOffsets(request).all().get().entrySet()) {
            result.put(e.getKey(), e.getValue().offset());
        }
        return result;
    }

    /**
     * A producer configured as the proxy configures its own with the default config (ProducerSettings): acks=all,
     * not idempotent, snappy, linger 1 ms, 128 KiB batches, 64 MiB buffer. The baseline then differs from the proxy
     * only by the proxy.
     */
    KafkaProducer<byte[], byte[]> producer() {
        Map<String, Object> s = new HashMap<>();
        s.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        s.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        s.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        s.put(ProducerConfig.ACKS_CONFIG, "all");
        s.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        s.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "snappy");
        s.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        s.put(ProducerConfig.BATCH_SIZE_CONFIG, 128 * 1024);
        s.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 64L << 20);
        s.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-raw-producer");
        return new KafkaProducer<>(s);
    }

    /** A consumer outside any group (assign + seek), so that reading costs no group protocol at all. */
    KafkaConsumer<byte[], byte[]> consumer() {
        Map<String, Object> s = new HashMap<>();
        s.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        s.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        s.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        s.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        s.put(ConsumerConfig.CLIENT_ID_CONFIG, "bench-raw-consumer");
        // The read-rate run starts the topic over at its end; a fetch parked at the end would hold each restart for
        // the default 500 ms. While there is data to read this setting changes nothing.
        s.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
        return new KafkaConsumer<>(s);
    }

    static List<TopicPartition> partitions(String topic) {
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        return tps;
    }

    /** Writes {@code count} messages with the raw producer as fast as it takes them; fails if any is lost. */
    void fill(String topic, long count, Payloads payloads) throws InterruptedException {
        AtomicLong failed = new AtomicLong();
        AtomicReference<Exception> firstFailure = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (long i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, payloads.bytes()), (md, e) -> {
                    if (e != null) {
                        failed.incrementAndGet();
                        firstFailure.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
        }
        if (failed.get() > 0) {
            throw new IllegalStateException(failed.get() + " of " + count + " fill messages failed",
                    firstFailure.get());
        }
    }

    @Override
    public void close() {
        admin.close(java.time.Duration.ofSeconds(5));
    }
}
