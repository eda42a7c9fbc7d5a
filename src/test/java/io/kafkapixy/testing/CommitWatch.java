package io.kafkapixy.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka's view of a group's committed offsets, read over and over with a plain Admin client (never the proxy) while a
 * fault test runs, and held against the {@link DeliveryLedger}:
 * <ul>
 *   <li>a committed offset never passes a message whose ack no client had sent by then;</li>
 *   <li>a message is never delivered again after its commit was seen (a duplicate must be a message that was offered
 *       but not committed).</li>
 * </ul>
 */
public final class CommitWatch implements AutoCloseable {

    /** Committed offsets by partition, read between {@code startedAt} and {@code readAt}. */
    public record Sample(long startedAt, long readAt, Map<Integer, Long> committed) {
    }

    private final Admin admin;
    private final String group;
    private final String topic;
    private final DeliveryLedger ledger;
    private final Map<Integer, Long> start;
    private final List<Sample> samples = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    /** {@code start}: the offsets the group was committed at before the test's clients began, by partition. */
    public CommitWatch(Admin admin, String group, String topic, Map<Integer, Long> start, DeliveryLedger ledger) {
        this.admin = admin;
        this.group = group;
        this.topic = topic;
        this.start = Map.copyOf(start);
        this.ledger = ledger;
        this.thread = Thread.ofPlatform().daemon().name("commit-watch-" + group).start(this::run);
    }

    private void run() {
        while (running) {
            long startedAt = System.nanoTime();
            Map<Integer, Long> committed = new TreeMap<>();
            try {
                Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
                offsets.forEach((tp, om) -> {
                    if (tp.topic().equals(topic) && om != null) {
                        committed.put(tp.partition(), om.offset());
                    }
                });
            } catch (InterruptedException e) {
                return;
            } catch (Exception brokerAway) {
                // the broker-restart test takes it away on purpose: look again after the usual pause
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                continue;
            }
            Sample sample = new Sample(startedAt, System.nanoTime(), committed);
            // Acks sent up to now: a commit read before this point cannot include an ack sent after it.
            Set<DeliveryLedger.Position> sent = ledger.acksSent();
            synchronized (this) {
                samples.add(sample);
                committed.forEach((partition, offset) -> {
                    for (long o = start.getOrDefault(partition, 0L); o < offset; o++) {
                        if (!sent.contains(new DeliveryLedger.Position(partition, o))) {
                            violations.add("committed offset " + offset + " of partition " + partition
                                           + " passed offset " + o + ", which no client had acked");
                            return;
                        }
                    }
                });
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    /** Commits that passed an unacked message. */
    public synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    public synchronized int samples() {
        return samples.size();
    }

    /**
     * Deliveries of a message whose commit had been read before the delivery's request was even sent: a commit
     * past it, so the proxy delivered what the group had already finished.
     */
    public synchronized List<String> deliveriesAfterCommit(List<DeliveryLedger.Delivery> deliveries) {
        List<String> found = new ArrayList<>();
        for (DeliveryLedger.Delivery d : deliveries) {
            for (Sample s : samples) {
                if (s.readAt() >= d.sentAt()) {
                    break;
                }
                Long c = s.committed().get(d.position().partition());
                if (c != null && c > d.position().offset()) {
                    found.add(d + " after a commit at " + c);
                    break;
                }
            }
        }
        return found;
    }

    /** The last sample read, or an empty map before the first. */
    public synchronized Map<Integer, Long> latest() {
        return samples.isEmpty() ? Map.of() : samples.getLast().committed();
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(TimeUnit.SECONDS.toMillis(30));
    }
}
