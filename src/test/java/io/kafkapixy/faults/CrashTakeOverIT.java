package io.kafkapixy.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.kafkapixy.testing.PixyFleet;
import io.kafkapixy.testing.TestKafka;
import io.kafkapixy.testing.TestZooKeeper;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two instances of the packaged jar share a group, in either membership mode with its default session timeout;
 * clients consume with explicit acks from both; one instance is killed or stopped mid-consume. The survivor takes its
 * partitions over, every message ends acked, and nothing acked and kept is delivered again.
 */
class CrashTakeOverIT {

    static final int MESSAGES = 3_000;
    /** A stopping instance leaves the group at once after its drain; no session has to expire. */
    static final Duration STOP_TAKE_OVER_BOUND = Duration.ofSeconds(15);

    enum Mode {
        /** {@code consumer.session_timeout} 10 s, one heartbeat (2 s) and the join, with room for a loaded machine. */
        KAFKA(Duration.ofSeconds(25)),
        /** {@code zoo_keeper.session_timeout} 15 s, the claim retries ({@code retry_backoff}), with room. */
        ZOOKEEPER(Duration.ofSeconds(30));

        final Duration crashTakeOverBound;

        Mode(Duration crashTakeOverBound) {
            this.crashTakeOverBound = crashTakeOverBound;
        }

        String config(String bootstrap) {
            return this == KAFKA ? kafkaMembership(bootstrap) : zooKeeperMembership(bootstrap, zooKeeper, "15s");
        }
    }

    private static TestingServer zooKeeper;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zooKeeper = zooKeeperServer();
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zooKeeper.close();
    }

    /** A ZooKeeper server that grants sessions of 2 s to 20 s (the original's default is 15 s). */
    static TestingServer zooKeeperServer() throws Exception {
        return TestZooKeeper.running(-1, 1_000);
    }

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

    static String zooKeeperMembership(String bootstrap, TestingServer zooKeeper, String sessionTimeout) {
        return """
                kafka:
                  seed_peers: [%s]
                zoo_keeper:
                  seed_peers: [%s]
                  session_timeout: %s
                consumer:
                  membership: zookeeper
                  ack_timeout: 5s
                  long_polling_timeout: 1s
                  offsets_commit_interval: 200ms
                  retry_backoff: 200ms
                """.formatted(bootstrap, zooKeeper.getConnectString(), sessionTimeout);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aKilledInstancesPartitionsAreServedAgainWithinTheSessionTimeoutAndNothingIsLost(Mode mode,
                                                                                          @TempDir Path dir)
            throws Exception {
        TestKafka kafka = TestKafka.get();
        String topic = kafka.createTopic(TestKafka.uniqueTopic("crash"), 4);
        try (PixyFleet fleet = new PixyFleet(dir);
             FaultRig rig = new FaultRig(kafka.bootstrap(), kafka.admin(), topic, 4, "crash-" + topic)) {
            startConsuming(rig, fleet, mode.config(kafka.bootstrap()));

            long killedAt = System.nanoTime();
            fleet.get("b").process().kill();

            rig.awaitAllAcked(Duration.ofSeconds(120), fleet);
            Duration takeOver = rig.takeOver("b", killedAt);
            System.out.printf("%s membership, SIGKILL take-over: %d ms, %d duplicates%n", mode, takeOver.toMillis(),
                    rig.duplicates());
            assertTrue(takeOver.compareTo(mode.crashTakeOverBound) <= 0, "take-over took " + takeOver);
            rig.stopClients();
            // b's acks since its last commit die with it: only those may be delivered again.
            rig.assertAtLeastOnce(ack -> ack.instance().equals("b"));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aStoppedInstanceHandsItsPartitionsOverAtOnceAndNoAckedMessageComesAgain(Mode mode, @TempDir Path dir)
            throws Exception {
        TestKafka kafka = TestKafka.get();
        String topic = kafka.createTopic(TestKafka.uniqueTopic("stop"), 4);
        try (PixyFleet fleet = new PixyFleet(dir);
             FaultRig rig = new FaultRig(kafka.bootstrap(), kafka.admin(), topic, 4, "stop-" + topic)) {
            startConsuming(rig, fleet, mode.config(kafka.bootstrap()));

            long stoppedAt = System.nanoTime();
            fleet.get("b").process().terminate();

            rig.awaitAllAcked(Duration.ofSeconds(120), fleet);
            Duration takeOver = rig.takeOver("b", stoppedAt);
            System.out.printf("%s membership, SIGTERM take-over: %d ms, %d duplicates%n", mode, takeOver.toMillis(),
                    rig.duplicates());
            assertTrue(takeOver.compareTo(STOP_TAKE_OVER_BOUND) <= 0, "take-over took " + takeOver);
            assertTrue(fleet.get("b").process().process().waitFor(60, TimeUnit.SECONDS), "b stopped");
            assertTrue(fleet.get("b").process().log().contains("Stopped"), "b stopped cleanly");
            rig.stopClients();
            rig.assertAtLeastOnce(ack -> false);
        }
    }

    /**
     * Starts instances a and b with this cluster config, lets the group settle on them, fills the topic with
     * {@link #MESSAGES} and returns once both are consuming them: the moment for a fault.
     */
    static void startConsuming(FaultRig rig, PixyFleet fleet, String clusterConfig) throws Exception {
        rig.prepare();
        fleet.start(clusterConfig, "a", "b");
        rig.consumeFrom(fleet.get("a"), 2);
        rig.consumeFrom(fleet.get("b"), 2);
        rig.awaitSettled(fleet, "a", "b");
        rig.fill(MESSAGES);
        awaitBothServing(rig, fleet);
    }

    /**
     * Both instances serve partitions with messages left and a third of the messages are acked: the fault comes
     * mid-consume.
     */
    private static void awaitBothServing(FaultRig rig, PixyFleet fleet) {
        try {
            TestKafka.Waits.until(Duration.ofSeconds(90), "both instances serving",
                    () -> rig.ledger.deliveredBy("a") >= 100 && rig.ledger.deliveredBy("b") >= 100
                          && rig.ledger.ackedCount() >= rig.produced() / 3
                          && !rig.unfinishedPartitionsOf("a", System.nanoTime()).isEmpty()
                          && !rig.unfinishedPartitionsOf("b", System.nanoTime()).isEmpty());
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; a delivered " + rig.ledger.deliveredBy("a") + ", b "
                                     + rig.ledger.deliveredBy("b") + "; logs:" + fleet.logs(), e);
        }
    }
}
