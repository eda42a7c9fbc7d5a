package io.kafkapixy.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.kafkapixy.testing.DeliveryLedger;
import io.kafkapixy.testing.PixyFleet;
import io.kafkapixy.testing.RestConsumerLoop;
import io.kafkapixy.testing.TestKafka;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Share groups: two instances of the packaged jar in one share group on a one-partition topic; the clients of b take
 * messages and never ack them, and b is killed (SIGKILL) while it holds them. The broker gives them to a's clients as
 * their locks run out (ack_timeout, 5 s here): nothing is lost, none is accepted twice, and nothing waits for more
 * than the lock and a few seconds.
 */
class ShareCrashIT {

    static final int MESSAGES = 300;
    static final Duration ACK_TIMEOUT = Duration.ofSeconds(5);
    /** The lock, a poll and the hand-out, with room for a loaded machine. */
    static final Duration TAKE_OVER_BOUND = ACK_TIMEOUT.plusSeconds(10);

    @Test
    void whatAKilledInstanceHeldGoesToTheOtherWhenItsLocksRunOutAndNothingIsLostOrAcceptedTwice(@TempDir Path dir)
            throws Exception {
        TestKafka kafka = TestKafka.get();
        String topic = kafka.createTopic(TestKafka.uniqueTopic("sharecrash"), 1);
        String group = "sharecrash-" + topic;
        kafka.admin().incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group),
                List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
                        AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        for (int i = 0; i < MESSAGES; i++) {
            kafka.produce(topic, 0, null, "m" + i);
        }
        DeliveryLedger ledger = new DeliveryLedger();
        List<RestConsumerLoop> clients = new ArrayList<>();
        try (PixyFleet fleet = new PixyFleet(dir)) {
            fleet.start("""
                    kafka:
                      seed_peers: [%s]
                    consumer:
                      membership: share
                      ack_timeout: %ds
                      long_polling_timeout: 1s
                    """.formatted(kafka.bootstrap(), ACK_TIMEOUT.toSeconds()), "a", "b");
            PixyFleet.Instance b = fleet.get("b");
            List<RestConsumerLoop> holders = List.of(
                    RestConsumerLoop.neverAcking("b", b.rest(), topic, group, ledger),
                    RestConsumerLoop.neverAcking("b", b.rest(), topic, group, ledger));
            TestKafka.Waits.until(Duration.ofSeconds(60), "b's clients hold messages",
                    () -> ledger.deliveredBy("b") >= 6);
            long killedAt = System.nanoTime();
            b.process().kill();
            for (RestConsumerLoop h : holders) {
                h.close();
            }
            Set<DeliveryLedger.Position> heldByB = ledger.deliveries().stream()
                    .filter(d -> d.instance().equals("b")).map(DeliveryLedger.Delivery::position)
                    .collect(Collectors.toSet());

            PixyFleet.Instance a = fleet.get("a");
            clients.add(RestConsumerLoop.acking("a", a.rest(), topic, group, ledger));
            clients.add(RestConsumerLoop.acking("a", a.rest(), topic, group, ledger));
            TestKafka.Waits.until(Duration.ofSeconds(120), "every message accepted",
                    () -> ledger.ackedCount() == MESSAGES);

            for (int i = 0; i < MESSAGES; i++) {
                DeliveryLedger.Position p = new DeliveryLedger.Position(0, i);
                assertEquals(1, ledger.acksOf(p).size(), "accepted once: " + p + " " + ledger.acksOf(p));
            }
            long lastTakenOver = heldByB.stream().mapToLong(p -> ledger.acksOf(p).get(0).at()).max().orElseThrow();
            Duration takeOver = Duration.ofNanos(lastTakenOver - killedAt);
            System.out.printf("share group, SIGKILL: %d messages held by b, all accepted on a within %d ms%n",
                    heldByB.size(), takeOver.toMillis());
            assertTrue(takeOver.compareTo(TAKE_OVER_BOUND) <= 0, "took " + takeOver + fleet.logs());
        } finally {
            for (RestConsumerLoop c : clients) {
                c.close();
            }
        }
    }
}
