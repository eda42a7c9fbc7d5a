package io.kafkapixy.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.kafkapixy.embedded.EmbeddedKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The Kafka broker the end-to-end tests run against, one per test JVM, in this order of preference: an external
 * broker named by {@code -Dkafka.bootstrap=host:port} (or env {@code KAFKA_BOOTSTRAP}), Testcontainers' Kafka when
 * a Docker engine answers, else an embedded KRaft broker. Also the tests' independent view of Kafka: a plain
 * Admin client and consumer, never the proxy.
 */
public final class TestKafka {

    private static volatile TestKafka shared;

    private final String bootstrap;
    private final String kind;
    private final Admin admin;

    private TestKafka(String bootstrap, String kind) {
        this.bootstrap = bootstrap;
        this.kind = kind;
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        this.admin = Admin.create(p);
    }

    /** The shared broker, started on first use and stopped when the test JVM exits. */
    public static synchronized TestKafka get() {
        if (shared == null) {
            shared = start();
        }
        return shared;
    }

    private static TestKafka start() {
        String external = System.getProperty("kafka.bootstrap", System.getenv("KAFKA_BOOTSTRAP"));
        if (external != null && !external.isBlank()) {
            return new TestKafka(external, "external");
        }
        if (dockerAvailable()) {
            KafkaContainer container = new KafkaContainer("apache/kafka:4.1.0");
            container.start();
            Runtime.getRuntime().addShutdownHook(new Thread(container::stop));
            return new TestKafka(container.getBootstrapServers(), "testcontainers");
        }
        EmbeddedKafka kafka = EmbeddedKafka.start();
        Runtime.getRuntime().addShutdownHook(new Thread(kafka::close));
        return new TestKafka(kafka.bootstrapServers(), "embedded");
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable e) {
            return false;
        }
    }

    public String bootstrap() {
        return bootstrap;
    }

    public String kind() {
        return kind;
    }

    public Admin admin() {
        return admin;
    }

    /** Creates a topic and waits until all its partitions have a leader. */
    public String createTopic(String name, int partitions) {
        try {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
            Waits.until(Duration.ofSeconds(30), "leaders of " + name, () -> {
                try {
                    var d = admin.describeTopics(List.of(name)).allTopicNames().get().get(name);
                    return d.partitions().size() == partitions
                           && d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty());
                } catch (Exception e) {
                    return false;
                }
            });
            return name;
        } catch (Exception e) {
            throw new IllegalStateException("cannot create topic " + name, e);
        }
    }

    /** Reads the record at {@code offset} of a partition with a plain consumer (no group). */
    public ConsumerRecord<byte[], byte[]> read(String topic, int partition, long offset) {
        List<ConsumerRecord<byte[], byte[]>> records = readFrom(topic, partition, offset, 1);
        return records.getFirst();
    }

    /** Reads {@code count} records from {@code offset} of a partition with a plain consumer (no group). */
    public List<ConsumerRecord<byte[], byte[]>> readFrom(String topic, int partition, long offset, int count) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            TopicPartition tp = new TopicPartition(topic, partition);
            consumer.assign(List.of(tp));
            consumer.seek(tp, offset);
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (records.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).records(tp).forEach(records::add);
            }
            if (records.size() < count) {
                throw new AssertionError("expected " + count + " records at " + tp + "@" + offset + ", got "
                                         + records.size());
            }
            return records.subList(0, count);
        }
    }

    /** End offsets of every partition of a topic, by partition id. */
    public Map<Integer, Long> endOffsets(String topic, int partitions) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                tps.add(new TopicPartition(topic, i));
            }
            Map<Integer, Long> result = new java.util.TreeMap<>();
            consumer.endOffsets(tps, Duration.ofSeconds(30)).forEach((tp, o) -> result.put(tp.partition(), o));
            return result;
        }
    }

    /** Produces with a plain producer, to an explicit partition; returns the offset. */
    public long produce(String topic, int partition, String key, String value) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("key.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class.getName());
        p.put("value.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class.getName());
        try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(p)) {
            return producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, partition,
                    key == null ? null : key.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    value.getBytes(java.nio.charset.StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS).offset();
        } catch (Exception e) {
            throw new IllegalStateException("cannot produce to " + topic, e);
        }
    }

    /** Produces {@code values} to one partition in one committed transaction (its marker takes an offset). */
    public void produceInTransaction(String topic, int partition, List<String> values) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("transactional.id", "tx-" + Long.toHexString(System.nanoTime()));
        p.put("key.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class.getName());
        p.put("value.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class.getName());
        try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(p)) {
            producer.initTransactions();
            producer.beginTransaction();
            for (String v : values) {
                producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, partition, null,
                        v.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            }
            producer.commitTransaction();
        }
    }

    /** The group's committed offsets of a topic, by partition, as Kafka has them. */
    public Map<Integer, org.apache.kafka.clients.consumer.OffsetAndMetadata> committed(String group, String topic) {
        try {
            Map<Integer, org.apache.kafka.clients.consumer.OffsetAndMetadata> result = new java.util.TreeMap<>();
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                    .forEach((tp, om) -> {
                        if (tp.topic().equals(topic) && om != null) {
                            result.put(tp.partition(), om);
                        }
                    });
            return result;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read offsets of " + group, e);
        }
    }

    /** Commits an offset with metadata for a group that has no live members. */
    public void commit(String group, String topic, int partition, long offset, String metadata) {
        try {
            admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, partition),
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(offset, metadata)))
                    .all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot commit for " + group, e);
        }
    }

    /** Partitions of a topic owned by each member of a group, by member client host/id, as Kafka reports them. */
    public Map<String, java.util.Set<Integer>> assignment(String group, String topic) {
        try {
            var description = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
                    .get(30, TimeUnit.SECONDS);
            Map<String, java.util.Set<Integer>> result = new java.util.TreeMap<>();
            description.members().forEach(m -> {
                java.util.Set<Integer> parts = new java.util.TreeSet<>();
                m.assignment().topicPartitions().forEach(tp -> {
                    if (tp.topic().equals(topic)) {
                        parts.add(tp.partition());
                    }
                });
                result.put(m.consumerId(), parts);
            });
            return result;
        } catch (Exception e) {
            throw new IllegalStateException("cannot describe " + group, e);
        }
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return new KafkaConsumer<>(p);
    }

    /** A unique topic name for one test. */
    public static String uniqueTopic(String prefix) {
        return prefix + "-" + Long.toHexString(System.nanoTime());
    }

    /** Waits for a condition, polling; fails with {@code what} when time runs out. */
    public static final class Waits {
        private static final Duration POLL = Duration.ofMillis(20);

        private Waits() {
        }

        /** Errors thrown by the condition (an exited process, a failed assertion) end the wait at once. */
        public static void until(Duration timeout, String what, Supplier<Boolean> condition) {
            try {
                Awaitility.await(what).atMost(timeout).pollDelay(Duration.ZERO).pollInterval(POLL)
                        .until(condition::get);
            } catch (ConditionTimeoutException e) {
                throw new AssertionError("timed out waiting for " + what);
            }
        }

        /** Checks that the condition stays true for {@code period} (what cannot be awaited: a wait going on). */
        public static void holdsFor(Duration period, String what, Supplier<Boolean> condition) {
            try {
                Awaitility.await(what).during(period).atMost(period.plusSeconds(5)).pollInterval(POLL)
                        .until(condition::get);
            } catch (ConditionTimeoutException e) {
                throw new AssertionError("stopped holding: " + what);
            }
        }
    }
}
