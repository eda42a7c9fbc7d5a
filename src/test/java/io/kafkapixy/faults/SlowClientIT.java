package io.kafkapixy.faults;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.kafkapixy.testing.DeliveryLedger;
import io.kafkapixy.testing.PixyFleet;
import io.kafkapixy.testing.RestConsumerLoop;
import io.kafkapixy.testing.Scrape;
import io.kafkapixy.testing.TestKafka;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client that takes messages and never acks them: each is offered again once its {@code ack_timeout} has passed,
 * {@code max_retries} more times, then given up as if acked (as the original does), so the group moves on.
 */
class SlowClientIT {

    static final Duration ACK_TIMEOUT = Duration.ofSeconds(2);
    static final int MAX_RETRIES = 2;
    static final int MESSAGES = 3;

    @Test
    void unackedMessagesComeAgainAfterTheAckTimeoutAtMostMaxRetriesTimesThenTheGroupMovesOn(@TempDir Path dir)
            throws Exception {
        TestKafka kafka = TestKafka.get();
        String topic = kafka.createTopic(TestKafka.uniqueTopic("slow"), 1);
        String group = "slow-" + topic;
        try (PixyFleet fleet = new PixyFleet(dir);
             FaultRig rig = new FaultRig(kafka.bootstrap(), kafka.admin(), topic, 1, group)) {
            rig.prefill(MESSAGES);
            PixyFleet.Instance pixy = fleet.start("""
                    kafka:
                      seed_peers: [%s]
                    consumer:
                      ack_timeout: %ds
                      max_retries: %d
                      long_polling_timeout: 1s
                      offsets_commit_interval: 200ms
                    """.formatted(kafka.bootstrap(), ACK_TIMEOUT.toSeconds(), MAX_RETRIES), "a").getFirst();
            DeliveryLedger ledger = rig.ledger;
            int expected = MESSAGES * (1 + MAX_RETRIES);
            try (RestConsumerLoop slow = RestConsumerLoop.neverAcking("a", pixy.rest(), topic, group, ledger)) {
                TestKafka.Waits.until(Duration.ofSeconds(60), "every message given up on",
                        () -> ledger.deliveries().size() >= expected);
                // Given up counts as acked: the commit passes them all.
                TestKafka.Waits.until(Duration.ofSeconds(30), "the group committed past the given-up messages",
                        () -> kafka.committed(group, topic).getOrDefault(0,
                                new org.apache.kafka.clients.consumer.OffsetAndMetadata(0)).offset() == MESSAGES);
                kafka.produce(topic, 0, null, "after");
                TestKafka.Waits.until(Duration.ofSeconds(30), "the next message delivered",
                        () -> ledger.deliveries().stream().anyMatch(d -> d.value().equals("after")));
            }

            List<DeliveryLedger.Delivery> deliveries = ledger.deliveries();
            List<DeliveryLedger.Delivery> before = deliveries.subList(0, deliveries.indexOf(deliveries.stream()
                    .filter(d -> d.value().equals("after")).findFirst().orElseThrow()));
            Map<Long, List<DeliveryLedger.Delivery>> byOffset = before.stream()
                    .collect(Collectors.groupingBy(d -> d.position().offset()));
            assertEquals(MESSAGES, byOffset.size(), "every message was offered: " + before);
            byOffset.forEach((offset, times) -> {
                assertEquals(1 + MAX_RETRIES, times.size(), "offset " + offset + " offered once and retried "
                                                            + MAX_RETRIES + " times: " + times);
                for (int i = 1; i < times.size(); i++) {
                    long apart = times.get(i).receivedAt() - times.get(i - 1).sentAt();
                    assertTrue(apart >= ACK_TIMEOUT.toNanos(), "offset " + offset + " came again after "
                                                               + Duration.ofNanos(apart) + ", before ack_timeout");
                }
            });
            assertEquals(0, ledger.ackedCount());

            Scrape metrics = Scrape.parse(HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + pixy.rest() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
            String[] labels = {"cluster", "pixy", "group", group, "topic", topic, "mode", "kafka"};
            assertEquals(MESSAGES * MAX_RETRIES, metrics.value("kafkapixy_consume_redeliveries_total", labels));
            assertEquals(MESSAGES, metrics.value("kafkapixy_consume_dropped_total", labels));
        }
    }
}
