package io.kafkapixy.producer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.kafkapixy.config.ProducerConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The original's sarama partitioners, with the key-to-partition vectors of its Go tests. */
class PartitionChooserTest {

    private static final Node LEADER = new Node(1, "localhost", 9092);

    @ParameterizedTest(name = "key \"{0}\" hashes to {1} and partition {2} of 4")
    @CsvSource(delimiter = '|', emptyValue = "", value = {
            "''  | 811c9dc5 | 3",
            "0   | 350ca8af | 3",
            "1   | 340ca71c | 0",
            "2   | 370cabd5 | 1",
            "3   | 360caa42 | 2",
            "4   | 310ca263 | 3",
            "5   | 300ca0d0 | 0",
            "6   | 330ca589 | 1",
            "7   | 320ca3f6 | 2",
            "8   | 3d0cb547 | 3",
            "9   | 3c0cb3b4 | 0",
            "foo | a9f37ed7 | 1",
            "bar | 76b77d1a | 2",
            "A   | c40bf6cc | 0",
            "B   | c70bfb85 | 3",
            "C   | c60bf9f2 | 2",
            "D   | c10bf213 | 1"})
    void keyedMessagesGoWhereTheOriginalPutsThem(String key, String fnvHex, int partition) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        assertEquals(Integer.parseUnsignedInt(fnvHex, 16), PartitionChooser.fnv1a32(bytes));
        assertEquals(partition, PartitionChooser.of(ProducerConfig.Partitioner.HASH)
                .choose("t", MessageKey.of(bytes), partitions(4)));
    }

    @Test
    void sixtyFourKeysOnSixtyFourPartitionsGrowTheOriginalsPartitionEnds() {
        int[] expected = {0, 75, 3, 0, 57, 0, 0, 8, 58, 6, 30, 59, 0, 75, 63, 0, 48, 37, 49, 0, 75, 2, 0, 51, 0, 0, 0,
                79, 1, 33, 61, 39, 75, 62, 0, 4, 36, 0, 0, 79, 61, 28, 53, 35, 18, 0, 79, 0, 32, 63, 38, 0, 9, 59, 7,
                31, 14, 0, 79, 60, 29, 55, 34, 67};
        PartitionChooser hash = PartitionChooser.of(ProducerConfig.Partitioner.HASH);
        int[] ends = new int[64];
        for (int i = 0; i < 64; i++) {
            byte[] key = Integer.toString(i).getBytes(StandardCharsets.UTF_8);
            int p = hash.choose("t", MessageKey.of(key), partitions(64));
            ends[p] += i;
        }
        for (int p = 0; p < 64; p++) {
            assertEquals(expected[p], ends[p], "partition " + p);
        }
    }

    @Test
    void hashingIsOverAllPartitionsInIdOrderWhateverOrderTheyAreListed() {
        List<PartitionInfo> shuffled = new ArrayList<>(partitions(4));
        Collections.reverse(shuffled);
        // "foo" → index 1 of the sorted list even when partition 1 has no leader.
        shuffled.replaceAll(p -> p.partition() == 1 ? new PartitionInfo("t", 1, null, new Node[0], new Node[0]) : p);
        assertEquals(1, PartitionChooser.of(ProducerConfig.Partitioner.HASH)
                .choose("t", MessageKey.of("foo".getBytes(StandardCharsets.UTF_8)), shuffled));
    }

    @Test
    void theGrpcEmptyKeyHashesLikeTheEmptyKey() {
        assertEquals(3, PartitionChooser.of(ProducerConfig.Partitioner.HASH)
                .choose("t", MessageKey.EMPTY_WRITTEN_AS_NULL, partitions(4)));
    }

    @Test
    void keylessMessagesGoToRandomWritablePartitions() {
        List<PartitionInfo> partitions = new ArrayList<>(partitions(4));
        partitions.set(2, new PartitionInfo("t", 2, null, new Node[0], new Node[0]));
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            seen.add(PartitionChooser.of(ProducerConfig.Partitioner.HASH).choose("t", MessageKey.ABSENT, partitions));
        }
        assertEquals(Set.of(0, 1, 3), seen);
    }

    @Test
    void theRandomPartitionerIgnoresKeys() {
        PartitionChooser random = PartitionChooser.of(ProducerConfig.Partitioner.RANDOM);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            seen.add(random.choose("t", MessageKey.of("foo".getBytes(StandardCharsets.UTF_8)), partitions(4)));
        }
        assertEquals(Set.of(0, 1, 2, 3), seen);
    }

    @Test
    void roundRobinCyclesThroughWritablePartitionsPerTopic() {
        PartitionChooser rr = PartitionChooser.of(ProducerConfig.Partitioner.ROUNDROBIN);
        List<Integer> a = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            a.add(rr.choose("a", MessageKey.ABSENT, partitions(3)));
        }
        assertEquals(List.of(0, 1, 2, 0, 1, 2), a);
        assertEquals(0, rr.choose("b", MessageKey.of(new byte[]{1}), partitions(3)));
    }

    static List<PartitionInfo> partitions(int n) {
        List<PartitionInfo> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(new PartitionInfo("t", i, LEADER, new Node[]{LEADER}, new Node[]{LEADER}));
        }
        return list;
    }
}
