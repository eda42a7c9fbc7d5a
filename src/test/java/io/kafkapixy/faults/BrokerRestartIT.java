package io.kafkapixy.faults;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.kafkapixy.embedded.EmbeddedKafka;
import io.kafkapixy.testing.DeliveryLedger;
import io.kafkapixy.testing.PixyFleet;
import io.kafkapixy.testing.TestKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The broker is restarted while two instances produce and consume: produces fail or wait meanwhile, every produce
 * the proxy acknowledged is in Kafka where it said, and the consumers resume and ack everything.
 */
class BrokerRestartIT {

    static final int PARTITIONS = 4;
    /** Reconnecting, finding the group coordinator again and fetching, with room for a loaded machine. */
    static final Duration RESUME_BOUND = Duration.ofSeconds(30);

    @Test
    void nothingAcknowledgedIsLostAndConsumersResumeAfterTheBrokerRestarts(@TempDir Path dir) throws Exception {
        try (EmbeddedKafka broker = EmbeddedKafka.start(dir.resolve("broker"), 0);
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                     broker.bootstrapServers()))) {
            String topic = "restart";
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
            String group = "restart-group";
            try (PixyFleet fleet = new PixyFleet(dir);
                 FaultRig rig = new FaultRig(broker.bootstrapServers(), admin, topic, PARTITIONS, group)) {
                rig.prefill(0);
                fleet.start(CrashTakeOverIT.kafkaMembership(broker.bootstrapServers()), "a", "b");
                List<RestProducerLoop> producers = List.of(new RestProducerLoop("a", fleet.get("a").rest(), topic),
                        new RestProducerLoop("b", fleet.get("b").rest(), topic));
                rig.consumeFrom(fleet.get("a"), 1);
                rig.consumeFrom(fleet.get("b"), 1);
                TestKafka.Waits.until(Duration.ofSeconds(90), "traffic before the restart",
                        () -> acknowledged(producers) >= 300 && rig.ledger.ackedCount() >= 100);

                long restartAt = System.nanoTime();
                broker.restart();
                long restartedAt = System.nanoTime();

                TestKafka.Waits.until(Duration.ofSeconds(120), "produces acknowledged after the restart",
                        () -> producers.stream().mapToLong(p -> p.acknowledgedSince(restartedAt)).sum() >= 300);
                for (RestProducerLoop p : producers) {
                    p.close();
                }
                List<RestProducerLoop.Acknowledged> acknowledged = new ArrayList<>();
                producers.forEach(p -> acknowledged.addAll(p.acknowledged()));
                acknowledged.forEach(a -> rig.expect(a.position()));
                rig.awaitAllAcked(Duration.ofSeconds(120), fleet);

                long resumed = rig.ledger.deliveries().stream().filter(d -> d.receivedAt() > restartedAt)
                        .mapToLong(DeliveryLedger.Delivery::receivedAt).min().orElseThrow();
                System.out.printf("broker restart: down %d ms; consumers resumed %d ms after it was back; "
                                  + "%d produces acknowledged, %d failed; %d duplicates%n",
                        Duration.ofNanos(restartedAt - restartAt).toMillis(),
                        Duration.ofNanos(resumed - restartedAt).toMillis(), acknowledged.size(),
                        producers.stream().mapToInt(RestProducerLoop::errors).sum(), rig.duplicates());

                assertTrue(resumed - restartedAt <= RESUME_BOUND.toNanos(), "consumers resumed after "
                           + Duration.ofNanos(resumed - restartedAt));
                Map<DeliveryLedger.Position, String> log = readAll(broker.bootstrapServers(), topic);
                for (RestProducerLoop.Acknowledged a : acknowledged) {
                    assertEquals(a.value(), log.get(a.position()), "the acknowledged produce at " + a.position());
                }
                rig.stopClients();
                rig.assertAtLeastOnce(ack -> false);
            }
        }
    }

    private static long acknowledged(List<RestProducerLoop> producers) {
        return producers.stream().mapToLong(p -> p.acknowledged().size()).sum();
    }

    /** Every record of the topic, read with a plain consumer. */
    private static Map<DeliveryLedger.Position, String> readAll(String bootstrap, String topic) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        Map<DeliveryLedger.Position, String> records = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < PARTITIONS; i++) {
                tps.add(new TopicPartition(topic, i));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> ends = consumer.endOffsets(tps, Duration.ofSeconds(30));
            long total = ends.values().stream().mapToLong(Long::longValue).sum();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (records.size() < total && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    records.put(new DeliveryLedger.Position(r.partition(), r.offset()),
                            new String(r.value(), StandardCharsets.UTF_8));
                }
            }
            assertTrue(records.size() == total, "read " + records.size() + " of " + total + " records");
        }
        return records;
    }
}
