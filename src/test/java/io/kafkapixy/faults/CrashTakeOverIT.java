package io.kafkapixy.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.kafkapixy.testing.PixyFleet;
import io.kafkapixy.testing.TestKafka;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two instances of the packaged jar share a group (Kafka membership, the default {@code session_timeout}); clients
 * consume with explicit acks from both; one instance is killed or stopped mid-consume. The survivor takes its
 * partitions over, every message ends acked, and nothing acked and kept is delivered again.
 */
class CrashTakeOverIT {

    static final int MESSAGES = 3_000;
    /** The default session timeout (10 s), one heartbeat (2 s) and the join, with room for a loaded machine. */
    static final Duration CRASH_TAKE_OVER_BOUND = Duration.ofSeconds(25);
    /** A stopping instance leaves the group at once after its drain; no session has to expire. */
    static final Duration STOP_TAKE_OVER_BOUND = Duration.ofSeconds(15);

    static String kafkaMembership(String bootstrap) {
        return """
                kafka:
                  seed_peers: [%s]
                consumer:
                  ack_timeout: 5s
                  long_polling_timeout: 1s
                  offsets_commit_interval: 200ms
                """.formatted(bootstrap);
    }

    @Test
    void aKilledInstancesPartitionsAreServedAgainWithinTheSessionTimeoutAndNothingIsLost(@TempDir Path dir)
            throws Exception {
        TestKafka kafka = TestKafka.get();
        String topic = kafka.createTopic(TestKafka.uniqueTopic("crash"), 4);
        try (PixyFleet fleet = new PixyFleet(dir);
             FaultRig rig = new FaultRig(kafka.bootstrap(), kafka.admin(), topic, 4, "crash-" + topic)) {
            rig.prefill(MESSAGES);
            fleet.start(kafkaMembership(kafka.bootstrap()), "a", "b");
            rig.consumeFrom(fleet.get("a"), 2);
            rig.consumeFrom(fleet.get("b"), 2);
            awaitBothServing(rig, fleet);

            long killedAt = System.nanoTime();
            fleet.get("b").process().kill();

            rig.awaitAllAcked(Duration.ofSeconds(120), fleet);
            Duration takeOver = rig.takeOver("b", killedAt);
            System.out.printf("SIGKILL take-over: %d ms, %d duplicates%n", takeOver.toMillis(), rig.duplicates());
            assertTrue(takeOver.compareTo(CRASH_TAKE_OVER_BOUND) <= 0, "take-over took " + takeOver);
            rig.stopClients();
            // b's acks since its last commit die with it: only those may be delivered again.
            rig.assertAtLeastOnce(ack -> ack.instance().equals("b"));
        }
    }

    @Test
    void aStoppedInstanceHandsItsPartitionsOverAtOnceAndNoAckedMessageComesAgain(@TempDir Path dir)
            throws Exception {
        TestKafka kafka = TestKafka.get();
        String topic = kafka.createTopic(TestKafka.uniqueTopic("stop"), 4);
        try (PixyFleet fleet = new PixyFleet(dir);
             FaultRig rig = new FaultRig(kafka.bootstrap(), kafka.admin(), topic, 4, "stop-" + topic)) {
            rig.prefill(MESSAGES);
            fleet.start(kafkaMembership(kafka.bootstrap()), "a", "b");
            rig.consumeFrom(fleet.get("a"), 2);
            rig.consumeFrom(fleet.get("b"), 2);
            awaitBothServing(rig, fleet);

            long stoppedAt = System.nanoTime();
            fleet.get("b").process().terminate();

            rig.awaitAllAcked(Duration.ofSeconds(120), fleet);
            Duration takeOver = rig.takeOver("b", stoppedAt);
            System.out.printf("SIGTERM take-over: %d ms, %d duplicates%n", takeOver.toMillis(), rig.duplicates());
            assertTrue(takeOver.compareTo(STOP_TAKE_OVER_BOUND) <= 0, "take-over took " + takeOver);
            assertTrue(fleet.get("b").process().process().waitFor(60, TimeUnit.SECONDS), "b stopped");
            assertTrue(fleet.get("b").process().log().contains("Stopped"), "b stopped cleanly");
            rig.stopClients();
            rig.assertAtLeastOnce(ack -> false);
        }
    }

    /** Both instances hold partitions and a third of the messages are acked: the fault comes mid-consume. */
    static void awaitBothServing(FaultRig rig, PixyFleet fleet) {
        try {
            TestKafka.Waits.until(Duration.ofSeconds(90), "both instances serving",
                    () -> rig.ledger.deliveredBy("a") >= 100 && rig.ledger.deliveredBy("b") >= 100
                          && rig.ledger.ackedCount() >= rig.produced() / 3);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; a delivered " + rig.ledger.deliveredBy("a") + ", b "
                                     + rig.ledger.deliveredBy("b") + "; logs:" + fleet.logs(), e);
        }
    }
}
