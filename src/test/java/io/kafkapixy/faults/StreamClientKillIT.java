package io.kafkapixy.faults;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.kafkapixy.stream.v1.Message;
import io.kafkapixy.testing.CommitWatch;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.DeliveryLedger;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.StreamConsumer;
import io.kafkapixy.testing.TestKafka;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A streaming client killed with SIGKILL while it holds 1,000 unacked messages of a 4-partition topic: its
 * connection drops with it, every one of those messages goes to the group's other stream at once (the ack timeout
 * here is a minute), and Kafka's committed offsets, read throughout with a plain Admin client, never pass a message
 * no client had acked.
 */
@Timeout(300)
class StreamClientKillIT {

    private static final int PARTITIONS = 4;
    private static final int MESSAGES = 1000;
    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(60);
    /** The issue's bound; the time taken is printed and in the README. */
    private static final Duration REDELIVERY_BOUND = Duration.ofSeconds(1);

    @Test
    void everyMessageAKilledClientHeldGoesAtOnceToAnotherStream() throws Exception {
        TestKafka kafka = TestKafka.get();
        String topic = kafka.createTopic(TestKafka.uniqueTopic("streamkill"), PARTITIONS);
        String group = "kill-" + topic;
        Map<Integer, Long> start = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            kafka.commit(group, topic, p, 0, "");
            start.put(p, 0L);
        }
        for (int i = 0; i < MESSAGES; i++) {
            kafka.produce(topic, i % PARTITIONS, "k" + i, "v" + i);
        }
        DeliveryLedger ledger = new DeliveryLedger();
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_streamkill",
                new ConsumerSettingsBuilder().ackTimeout(ACK_TIMEOUT)));
             CommitWatch watch = new CommitWatch(kafka.admin(), group, topic, start, ledger)) {
            int port = pixy.app().server().grpcPort().orElseThrow();
            Process holder = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
                    "-cp", System.getProperty("java.class.path"), StreamHolder.class.getName(),
                    String.valueOf(port), group, topic, String.valueOf(MESSAGES))
                    .redirectErrorStream(true).start();
            CompletableFuture<Void> holding = CompletableFuture.runAsync(() -> awaitLine(holder, "HOLDING " + MESSAGES));
            try {
                holding.get(120, TimeUnit.SECONDS);
                StreamConsumer other = StreamConsumer.open(pixy.channel(), group, List.of(topic), 2 * MESSAGES);
                TestKafka.Waits.holdsFor(Duration.ofMillis(500), "nothing for the other stream while all is held",
                        () -> other.waiting() == 0);

                long killed = System.nanoTime();
                holder.destroyForcibly();
                List<Message> redelivered = new ArrayList<>();
                for (int i = 0; i < MESSAGES; i++) {
                    redelivered.add(other.take(Duration.ofSeconds(30)));
                }
                Duration took = Duration.ofNanos(System.nanoTime() - killed);
                System.out.printf("StreamClientKillIT: %d messages redelivered %d ms after SIGKILL%n", MESSAGES,
                        took.toMillis());

                Set<String> ids = new HashSet<>();
                for (Message m : redelivered) {
                    ids.add(m.getPartition() + "@" + m.getOffset());
                    assertEquals(2, m.getAttempt(), "a second delivery");
                }
                assertEquals(MESSAGES, ids.size(), "every held message, once each");
                assertTrue(took.compareTo(REDELIVERY_BOUND) <= 0, "all redelivered within 1 s: " + took);

                for (Message m : redelivered) {
                    ledger.ackSent(new DeliveryLedger.Position(m.getPartition(), m.getOffset()));
                }
                other.ack(redelivered.toArray(Message[]::new));
                TestKafka.Waits.until(Duration.ofSeconds(30), "everything committed", () -> {
                    var committed = kafka.committed(group, topic);
                    for (int p = 0; p < PARTITIONS; p++) {
                        if (!committed.containsKey(p) || committed.get(p).offset() != MESSAGES / PARTITIONS) {
                            return false;
                        }
                    }
                    return true;
                });
                TestKafka.Waits.until(Duration.ofSeconds(10), "the watch saw the final commit",
                        () -> watch.latest().values().stream().allMatch(o -> o == MESSAGES / PARTITIONS));
                assertTrue(watch.samples() > 5, "the commits were watched throughout");
                assertEquals(List.of(), watch.violations(), "no commit passed an unacked message");
                other.cancel();
            } finally {
                holder.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    private static void awaitLine(Process p, String line) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            String l;
            while ((l = out.readLine()) != null) {
                if (l.equals(line)) {
                    return;
                }
            }
            throw new AssertionError("the holder ended before it held every message");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
