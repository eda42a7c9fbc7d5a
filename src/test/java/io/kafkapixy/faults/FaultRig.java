package io.kafkapixy.faults;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.kafkapixy.testing.CommitWatch;
import io.kafkapixy.testing.DeliveryLedger;
import io.kafkapixy.testing.PixyFleet;
import io.kafkapixy.testing.RestConsumerLoop;
import io.kafkapixy.testing.TestKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One group consuming one topic through instances of the proxy while a fault happens: the clients
 * ({@link RestConsumerLoop}), what they saw ({@link DeliveryLedger}), Kafka's committed offsets
 * ({@link CommitWatch}), and the checks every fault test makes at the end.
 */
final class FaultRig implements AutoCloseable {

    final String topic;
    final String group;
    final int partitions;
    final DeliveryLedger ledger = new DeliveryLedger();
    private final String bootstrap;
    private final Admin admin;
    private final List<RestConsumerLoop> clients = new ArrayList<>();
    private final java.util.Set<DeliveryLedger.Position> expected = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private CommitWatch watch;
    private int produced;

    FaultRig(String bootstrap, Admin admin, String topic, int partitions, String group) {
        this.bootstrap = bootstrap;
        this.admin = admin;
        this.topic = topic;
        this.partitions = partitions;
        this.group = group;
    }

    /** {@link #prepare()}, then {@link #fill} before any instance consumes. */
    void prefill(int messages) throws Exception {
        prepare();
        fill(messages);
    }

    /**
     * Commits the group at the start of every partition of the (empty) topic, so that it consumes everything produced
     * from now on (a new group would start at the end), and starts watching the group's commits.
     */
    void prepare() throws Exception {
        Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
        Map<Integer, Long> startOffsets = new HashMap<>();
        for (int i = 0; i < partitions; i++) {
            start.put(new TopicPartition(topic, i), new OffsetAndMetadata(0));
            startOffsets.put(i, 0L);
        }
        admin.alterConsumerGroupOffsets(group, start).all().get(30, TimeUnit.SECONDS);
        watch = new CommitWatch(admin, group, topic, startOffsets, ledger);
    }

    /**
     * Waits until the group has settled on these instances: each member holds partitions and all of them are held,
     * as list-consumers on the first instance tells (Kafka's group description, or ZooKeeper's owner nodes).
     */
    void awaitSettled(PixyFleet fleet, String... names) {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        java.net.URI uri = java.net.URI.create("http://127.0.0.1:" + fleet.get(names[0]).rest() + "/topics/" + topic
                                               + "/consumers?group=" + group);
        try {
            TestKafka.Waits.until(Duration.ofSeconds(90), "the group settled on " + List.of(names), () -> {
                try {
                    var body = io.kafkapixy.testing.JsonBodies.object(http.send(
                            java.net.http.HttpRequest.newBuilder(uri).build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString()).body());
                    var members = body.getJsonObject(group);
                    if (members == null || members.size() != names.length) {
                        return false;
                    }
                    int held = 0;
                    for (String member : members.keySet()) {
                        int n = members.getJsonArray(member).size();
                        if (n == 0) {
                            return false;
                        }
                        held += n;
                    }
                    return held == partitions;
                } catch (Exception notYet) {
                    return false;
                }
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; logs:" + fleet.logs(), e);
        }
    }

    /** Produces {@code messages} with a plain producer, spread evenly over the partitions, values {@code m-<n>}. */
    void fill(int messages) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        p.put("linger.ms", "5");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < messages; i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, null,
                        ("m-" + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
        produced = messages;
        for (int i = 0; i < messages; i++) {
            expected.add(new DeliveryLedger.Position(i % partitions, i / partitions));
        }
    }

    /** Starts {@code loops} acking clients on an instance. */
    void consumeFrom(PixyFleet.Instance instance, int loops) {
        for (int i = 0; i < loops; i++) {
            clients.add(RestConsumerLoop.acking(instance.name(), instance.rest(), topic, group, ledger));
        }
    }

    int produced() {
        return produced;
    }

    /** A message that must end acked (its produce was acknowledged to a client). */
    void expect(DeliveryLedger.Position p) {
        expected.add(p);
    }

    private boolean allAcked() {
        return ledger.acked().containsAll(expected);
    }

    /** Waits until the clients have acked every message of the topic; fails with the instances' logs. */
    void awaitAllAcked(Duration timeout, PixyFleet fleet) {
        try {
            TestKafka.Waits.until(timeout, "every message acked", this::allAcked);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + ": " + ledger.ackedCount() + " of " + expected.size()
                                     + " acked; logs:" + fleet.logs(), e);
        }
    }

    /** Stops the clients, so that the ledger holds still. */
    void stopClients() throws InterruptedException {
        for (RestConsumerLoop c : clients) {
            c.close();
        }
    }

    /**
     * The checks every fault test makes: every message acked at least once; no commit ever passed a message whose ack
     * had not been sent; no message delivered again after a commit past it was seen; and no message delivered again
     * after an instance confirmed its ack, unless {@code lossAllowed} says that instance could lose the ack (it was
     * killed or frozen before committing it).
     */
    void assertAtLeastOnce(Predicate<DeliveryLedger.Ack> lossAllowed) throws InterruptedException {
        Map<Integer, Long> ends = new HashMap<>();
        expected.forEach(p -> ends.merge(p.partition(), p.offset() + 1, Math::max));
        TestKafka.Waits.until(Duration.ofSeconds(30), "the group committed past every expected message " + ends,
                () -> ends.entrySet().stream().allMatch(e -> watch.latest().getOrDefault(e.getKey(), -1L)
                                                             >= e.getValue()));
        watch.close();
        assertTrue(allAcked(), "every message acked: " + ledger.ackedCount() + " of " + expected.size());
        assertTrue(watch.samples() > 0, "the committed offsets were read");
        assertEquals(List.of(), watch.violations(), "commits past unacked messages");
        List<DeliveryLedger.Delivery> deliveries = ledger.deliveries();
        assertEquals(List.of(), watch.deliveriesAfterCommit(deliveries), "deliveries of committed messages");
        assertEquals(List.of(), redeliveriesOfConfirmedAcks(deliveries, lossAllowed),
                "deliveries of messages whose ack an instance had confirmed and kept");
    }

    private List<String> redeliveriesOfConfirmedAcks(List<DeliveryLedger.Delivery> deliveries,
                                                     Predicate<DeliveryLedger.Ack> lossAllowed) {
        List<String> found = new ArrayList<>();
        for (DeliveryLedger.Delivery d : deliveries) {
            for (DeliveryLedger.Ack a : ledger.acksOf(d.position())) {
                if (a.at() < d.sentAt() && !lossAllowed.test(a)) {
                    found.add(d + " after " + a);
                    break;
                }
            }
        }
        return found;
    }

    /** How many messages were delivered more than once. */
    long duplicates() {
        List<DeliveryLedger.Delivery> all = ledger.deliveries();
        return all.size() - all.stream().map(DeliveryLedger.Delivery::position).distinct().count();
    }

    /**
     * How long after {@code at} the partitions {@code instance} held then, with messages left to consume, were first
     * served by another instance; the longest over those partitions. Fails if it held none or one was never served
     * again.
     */
    Duration takeOver(String instance, long at) {
        var held = unfinishedPartitionsOf(instance, at);
        assertTrue(!held.isEmpty(), instance + " held partitions with messages left: " + partitionsAt(at));
        long longest = 0;
        for (int partition : held) {
            long first = ledger.firstDeliveryByOthers(partition, instance, at).orElseThrow(
                    () -> new AssertionError("partition " + partition + " of " + instance + " never served again"));
            longest = Math.max(longest, first - at);
        }
        return Duration.ofNanos(longest);
    }

    /** The partitions {@code instance} was serving at {@code at} that still had messages to deliver then. */
    java.util.Set<Integer> unfinishedPartitionsOf(String instance, long at) {
        long perPartition = produced / partitions;
        var held = new java.util.HashSet<>(ledger.partitionsLastServedBy(instance, at));
        held.removeIf(partition -> ledger.highestDeliveredBefore(partition, at) >= perPartition - 1);
        return held;
    }

    /** Who served each partition last before {@code at}, and how far, for a failing test's message. */
    private String partitionsAt(long at) {
        StringBuilder b = new StringBuilder();
        for (int p = 0; p < partitions; p++) {
            String who = ledger.partitionsLastServedBy("a", at).contains(p) ? "a"
                    : ledger.partitionsLastServedBy("b", at).contains(p) ? "b" : "?";
            b.append(p).append(": ").append(who).append(" up to ").append(ledger.highestDeliveredBefore(p, at))
                    .append("; ");
        }
        return b.toString();
    }

    @Override
    public void close() throws InterruptedException {
        stopClients();
        if (watch != null) {
            watch.close();
        }
    }
}
