package io.kafkapixy.producer;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import io.kafkapixy.config.ProducerConfig;
import org.apache.kafka.common.PartitionInfo;

/**
 * Picks the partition of a message exactly as the original's sarama partitioners do. With {@code hash}, a keyed message
 * (empty keys included) goes to {@code abs((int) fnv1a32(key) % n)} over all partitions, not Kafka's murmur2 choice,
 * and an unkeyed one to a random partition. Implementations are thread-safe.
 */
interface PartitionChooser {

    /** Returns a partition id of {@code topic}; {@code partitions} is its non-empty partition list in any order. */
    int choose(String topic, MessageKey key, List<PartitionInfo> partitions);

    static PartitionChooser of(ProducerConfig.Partitioner kind) {
        return switch (kind) {
            case HASH -> new Hash();
            case RANDOM -> (topic, key, partitions) -> random(partitions);
            case ROUNDROBIN -> new RoundRobin();
        };
    }

    /** FNV-1a, 32 bit: offset basis 0x811C9DC5, prime 0x01000193, xor then multiply per byte. */
    static int fnv1a32(byte[] bytes) {
        int h = 0x811C9DC5;
        for (byte b : bytes) {
            h ^= b & 0xFF;
            h *= 0x01000193;
        }
        return h;
    }

    /**
     * sarama's non-reference hash partitioner: the signed 32-bit hash modulo {@code n}, negated when negative.
     * Returns an index into the partitions sorted by id.
     */
    static int hashIndex(byte[] key, int n) {
        int p = fnv1a32(key) % n;
        return p < 0 ? -p : p;
    }

    private static int random(List<PartitionInfo> partitions) {
        List<PartitionInfo> writable = writable(partitions);
        return writable.get(ThreadLocalRandom.current().nextInt(writable.size())).partition();
    }

    /** Partitions that have a leader, sorted by id; all of them when none has (the send then waits or fails). */
    private static List<PartitionInfo> writable(List<PartitionInfo> partitions) {
        List<PartitionInfo> writable = new ArrayList<>(partitions.size());
        for (PartitionInfo p : partitions) {
            if (p.leader() != null && !p.leader().isEmpty()) {
                writable.add(p);
            }
        }
        List<PartitionInfo> result = writable.isEmpty() ? new ArrayList<>(partitions) : writable;
        result.sort(Comparator.comparingInt(PartitionInfo::partition));
        return result;
    }

    /** Keyed messages hash over all partitions; keyless ones go to a random writable partition. */
    final class Hash implements PartitionChooser {
        @Override
        public int choose(String topic, MessageKey key, List<PartitionInfo> partitions) {
            byte[] hashBytes = key.hashBytes();
            if (hashBytes == null) {
                return random(partitions);
            }
            List<PartitionInfo> all = new ArrayList<>(partitions);
            all.sort(Comparator.comparingInt(PartitionInfo::partition));
            return all.get(hashIndex(hashBytes, all.size())).partition();
        }
    }

    /** A per-topic counter over the writable partitions, as sarama's round-robin partitioner. */
    final class RoundRobin implements PartitionChooser {
        private final Map<String, AtomicInteger> counters = new ConcurrentHashMap<>();

        @Override
        public int choose(String topic, MessageKey key, List<PartitionInfo> partitions) {
            List<PartitionInfo> writable = writable(partitions);
            int next = counters.computeIfAbsent(topic, t -> new AtomicInteger()).getAndIncrement();
            return writable.get(Math.floorMod(next, writable.size())).partition();
        }
    }
}
