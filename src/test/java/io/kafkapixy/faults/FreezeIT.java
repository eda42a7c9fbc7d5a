package io.kafkapixy.faults;

import java.nio.file.Path;
import java.time.Duration;

import io.kafkapixy.testing.PixyFleet;
import io.kafkapixy.testing.TestKafka;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An instance frozen (SIGSTOP) past its session timeout, as a stalled VM or container is: the group drops it (Kafka's
 * coordinator stops hearing its heartbeats; ZooKeeper expires its session and its owner nodes), the other member takes
 * its partitions, and when it is thawed (SIGCONT) it must not go on serving them from what it had fetched. The group
 * ends with every message acked, and nothing the other member acked or committed is delivered again.
 */
class FreezeIT {

    enum Mode {
        /** The brokers' least session timeout (group.min.session.timeout.ms), to keep the test short. */
        KAFKA,
        /** A 4 s ZooKeeper session. */
        ZOOKEEPER
    }

    /** Either session (6 s, 4 s), the rebalance or the claims, with room for a loaded machine. */
    static final Duration TAKE_OVER_BOUND = Duration.ofSeconds(25);

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aFrozenInstanceLosesItsPartitionsAndDoesNotServeThemWhenItWakes(Mode mode, @TempDir Path dir)
            throws Exception {
        TestKafka kafka = TestKafka.get();
        String topic = kafka.createTopic(TestKafka.uniqueTopic("freeze"), 4);
        try (TestingServer zooKeeper = CrashTakeOverIT.zooKeeperServer();
             PixyFleet fleet = new PixyFleet(dir);
             FaultRig rig = new FaultRig(kafka.bootstrap(), kafka.admin(), topic, 4, "freeze-" + topic)) {
            CrashTakeOverIT.startConsuming(rig, fleet, mode == Mode.KAFKA
                    ? CrashTakeOverIT.kafkaMembership(kafka.bootstrap()) + "  session_timeout: 6s\n"
                    : CrashTakeOverIT.zooKeeperMembership(kafka.bootstrap(), zooKeeper, "4s"));

            long frozenAt = System.nanoTime();
            fleet.get("a").process().suspend();
            try {
                TestKafka.Waits.until(Duration.ofSeconds(60), "b serving a's partitions", () -> {
                    try {
                        rig.takeOver("a", frozenAt);
                        return true;
                    } catch (AssertionError notYet) {
                        return false;
                    }
                });
            } finally {
                fleet.get("a").process().resume();
            }
            Duration takeOver = rig.takeOver("a", frozenAt);

            rig.awaitAllAcked(Duration.ofSeconds(120), fleet);
            System.out.printf("%s membership, SIGSTOP past the session: take-over %d ms, %d duplicates%n", mode,
                    takeOver.toMillis(), rig.duplicates());
            assertTrue(takeOver.compareTo(TAKE_OVER_BOUND) <= 0, "take-over took " + takeOver);
            assertTrue(fleet.get("a").process().process().isAlive(), "a lives on");
            rig.stopClients();
            // a's acks up to its freeze may be lost with its partitions; b's never are, so a thawed a that served b's
            // partitions from what it had fetched would deliver messages b had acked (or committed) again.
            rig.assertAtLeastOnce(ack -> ack.instance().equals("a"));
        }
    }
}
