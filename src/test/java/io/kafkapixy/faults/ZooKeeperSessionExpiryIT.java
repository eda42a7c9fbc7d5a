package io.kafkapixy.faults;

import java.nio.file.Path;
import java.time.Duration;

import io.kafkapixy.testing.PixyFleet;
import io.kafkapixy.testing.TestKafka;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper membership: an instance frozen (SIGSTOP) past {@code zoo_keeper.session_timeout} loses its session, so its
 * owner nodes vanish and the other member claims its partitions; when it is thawed (SIGCONT) it must not go on serving
 * them, and the group ends with every message acked and no acked message delivered again by it.
 */
class ZooKeeperSessionExpiryIT {

    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

    @Test
    void aFrozenInstanceLosesItsPartitionsAndDoesNotServeThemWhenItWakes(@TempDir Path dir) throws Exception {
        TestKafka kafka = TestKafka.get();
        String topic = kafka.createTopic(TestKafka.uniqueTopic("freeze"), 4);
        try (TestingServer zooKeeper = CrashTakeOverIT.zooKeeperServer();
             PixyFleet fleet = new PixyFleet(dir);
             FaultRig rig = new FaultRig(kafka.bootstrap(), kafka.admin(), topic, 4, "freeze-" + topic)) {
            rig.prefill(CrashTakeOverIT.MESSAGES);
            fleet.start(CrashTakeOverIT.zooKeeperMembership(kafka.bootstrap(), zooKeeper,
                    SESSION_TIMEOUT.toSeconds() + "s"), "a", "b");
            rig.consumeFrom(fleet.get("a"), 2);
            rig.consumeFrom(fleet.get("b"), 2);
            CrashTakeOverIT.awaitBothServing(rig, fleet);

            long frozenAt = System.nanoTime();
            fleet.get("a").process().suspend();
            try {
                TestKafka.Waits.until(Duration.ofSeconds(60), "b serving a's partitions",
                        () -> {
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
            System.out.printf("ZooKeeper session expiry (SIGSTOP): take-over %d ms, %d duplicates%n",
                    takeOver.toMillis(), rig.duplicates());
            assertTrue(fleet.get("a").process().process().isAlive(), "a lives on");
            rig.stopClients();
            // a's acks up to its freeze may be lost with its claims; b's never are, so a thawed a that served b's
            // partitions from what it had fetched would deliver messages b had acked (or committed) again.
            rig.assertAtLeastOnce(ack -> ack.instance().equals("a"));
        }
    }
}
