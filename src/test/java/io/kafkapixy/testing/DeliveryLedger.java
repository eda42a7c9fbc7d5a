package io.kafkapixy.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a fault test's clients saw, in the order they saw it: every message delivered (by which instance, when the
 * request was sent), every ack sent, and every ack an instance confirmed. Thread-safe; times are
 * {@link System#nanoTime()}.
 */
public final class DeliveryLedger {

    /** A message of the test's topic. */
    public record Position(int partition, long offset) {
    }

    /**
     * One delivery: {@code sentAt} is when the consume request left the client (before the proxy chose the message),
     * {@code receivedAt} when the answer arrived.
     */
    public record Delivery(Position position, String value, String instance, long sentAt, long receivedAt) {
    }

    /** An ack the instance answered 200 to, when the answer arrived. */
    public record Ack(Position position, String instance, long at) {
    }

    private final List<Delivery> deliveries = new ArrayList<>();
    private final Set<Position> acksSent = new HashSet<>();
    private final Map<Position, List<Ack>> acks = new HashMap<>();

    public synchronized void delivered(Position p, String value, String instance, long sentAt) {
        deliveries.add(new Delivery(p, value, instance, sentAt, System.nanoTime()));
    }

    /** Called before the ack leaves the client, so a commit that includes it comes after this. */
    public synchronized void ackSent(Position p) {
        acksSent.add(p);
    }

    public synchronized void acked(Position p, String instance, long at) {
        acks.computeIfAbsent(p, k -> new ArrayList<>()).add(new Ack(p, instance, at));
    }

    public synchronized List<Delivery> deliveries() {
        return List.copyOf(deliveries);
    }

    public synchronized Set<Position> acksSent() {
        return Set.copyOf(acksSent);
    }

    public synchronized Set<Position> acked() {
        return Set.copyOf(acks.keySet());
    }

    public synchronized List<Ack> acksOf(Position p) {
        return List.copyOf(acks.getOrDefault(p, List.of()));
    }

    public synchronized int ackedCount() {
        return acks.size();
    }

    public synchronized long deliveredBy(String instance) {
        return deliveries.stream().filter(d -> d.instance().equals(instance)).count();
    }

    /** The partitions whose last delivery before {@code at} came from {@code instance}: the ones it held then. */
    public synchronized Set<Integer> partitionsLastServedBy(String instance, long at) {
        Map<Integer, String> last = new HashMap<>();
        for (Delivery d : deliveries) {
            if (d.sentAt() < at) {
                last.put(d.position().partition(), d.instance());
            }
        }
        Set<Integer> held = new HashSet<>();
        last.forEach((partition, who) -> {
            if (who.equals(instance)) {
                held.add(partition);
            }
        });
        return held;
    }

    /** The highest offset of a partition delivered before {@code at}, or -1. */
    public synchronized long highestDeliveredBefore(int partition, long at) {
        return deliveries.stream().filter(d -> d.position().partition() == partition && d.sentAt() < at)
                .mapToLong(d -> d.position().offset()).max().orElse(-1);
    }

    /** The first delivery of a partition's message by another instance than {@code instance} after {@code at}. */
    public synchronized java.util.OptionalLong firstDeliveryByOthers(int partition, String instance, long at) {
        return deliveries.stream()
                .filter(d -> d.position().partition() == partition && !d.instance().equals(instance)
                             && d.receivedAt() >= at)
                .mapToLong(Delivery::receivedAt).min();
    }
}
