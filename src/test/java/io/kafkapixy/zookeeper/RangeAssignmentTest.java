package io.kafkapixy.zookeeper;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The range assignment, against the vectors of the original's {@code TestAssignTopicPartitions} and
 * {@code TestResolvePartitions}.
 */
class RangeAssignmentTest {

    /** Every case of the original's {@code TestAssignTopicPartitions}, in its order. */
    static Stream<Arguments> goVectors() {
        return Stream.of(
                Arguments.of(List.of(0), List.of("a"), Map.of("a", List.of(0))),
                Arguments.of(List.of(1, 2, 0), List.of("a"), Map.of("a", List.of(0, 1, 2))),
                Arguments.of(List.of(0), List.of("b", "a"), Map.of("a", List.of(0))),
                Arguments.of(List.of(0, 3, 1, 2), List.of("b", "a"), Map.of("a", List.of(0, 1), "b", List.of(2, 3))),
                Arguments.of(List.of(0, 3, 1, 2), List.of("b", "c", "a"),
                        Map.of("a", List.of(0, 1), "b", List.of(2), "c", List.of(3))),
                Arguments.of(List.of(0, 3, 1, 2, 4), List.of("b", "c", "a"),
                        Map.of("a", List.of(0, 1), "b", List.of(2, 3), "c", List.of(4))),
                Arguments.of(List.of(0, 3, 1, 2, 5, 4), List.of("b", "c", "a"),
                        Map.of("a", List.of(0, 1), "b", List.of(2, 3), "c", List.of(4, 5))),
                Arguments.of(List.of(6, 0, 3, 1, 2, 5, 4), List.of("b", "c", "a"),
                        Map.of("a", List.of(0, 1, 2), "b", List.of(3, 4), "c", List.of(5, 6))),
                Arguments.of(List.of(6, 0, 3, 1, 2, 5, 4), List.of("d", "b", "c", "a"),
                        Map.of("a", List.of(0, 1), "b", List.of(2, 3), "c", List.of(4, 5), "d", List.of(6))));
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("goVectors")
    void assignsLikeTheOriginal(List<Integer> partitions, List<String> members, Map<String, List<Integer>> expected) {
        assertThat(RangeAssignment.assign(partitions, members), is(expected));
    }

    @Test
    void emptyPartitionsOrMembersAssignNothing() {
        List<List<Integer>> partitionLists = List.of(List.of(), List.of(1));
        List<List<String>> memberLists = List.of(List.of(), List.of("a"), List.of("a", "b"));
        for (List<Integer> partitions : partitionLists) {
            for (List<String> members : memberLists) {
                if (partitions.isEmpty() || members.isEmpty()) {
                    assertThat(partitions + " over " + members, RangeAssignment.assign(partitions, members),
                            is(Map.of()));
                }
            }
        }
    }

    @Test
    void iteratesInMemberOrderAndDoesNotTouchItsArguments() {
        List<Integer> partitions = new ArrayList<>(List.of(6, 0, 3, 1, 2, 5, 4));
        List<String> members = new ArrayList<>(List.of("d", "b", "c", "a"));
        Map<String, List<Integer>> assigned = RangeAssignment.assign(partitions, members);
        assertThat(List.copyOf(assigned.keySet()), contains("a", "b", "c", "d"));
        assertThat(partitions, contains(6, 0, 3, 1, 2, 5, 4));
        assertThat(members, contains("d", "b", "c", "a"));
        assertThrows(UnsupportedOperationException.class, () -> assigned.put("e", List.of()));
        assertThrows(UnsupportedOperationException.class, () -> assigned.get("a").add(9));
    }

    @Test
    void partitionsSortAsSignedInt32() {
        // Not string order ("10" < "9"), and sparse ids keep their identity.
        assertThat(RangeAssignment.assign(List.of(10, 9, 100, 2), List.of("b", "a")),
                is(Map.of("a", List.of(2, 9), "b", List.of(10, 100))));
    }

    @Test
    void moreMembersThanPartitionsLeavesTheLastWithoutAnEntry() {
        assertThat(RangeAssignment.assign(List.of(1, 0), List.of("d", "c", "b", "a")),
                is(Map.of("a", List.of(0), "b", List.of(1))));
    }

    @Test
    void duplicatesCountOnce() {
        assertThat(RangeAssignment.assign(List.of(0, 1, 1, 2), List.of("a", "b", "a")),
                is(Map.of("a", List.of(0, 1), "b", List.of(2))));
    }

    @Test
    void nullsAreRejected() {
        assertThrows(NullPointerException.class, () -> RangeAssignment.assign(List.of(0), Arrays.asList("a", null)));
        assertThrows(NullPointerException.class, () -> RangeAssignment.assign(Arrays.asList(0, null), List.of("a")));
    }

    /**
     * Members sort by UTF-8 bytes like Go's {@code sort.Strings}, not by UTF-16 code units like
     * {@link String#compareTo}: U+FF61 (EF BD A1) comes before U+1F600 (F0 9F 98 80) although its UTF-16 unit
     * FF61 is above the high surrogate D83D.
     */
    @Test
    void membersSortByUtf8BytesNotUtf16() {
        String halfwidth = "\uFF61";
        String emoji = "\uD83D\uDE00";
        assertThat(halfwidth.compareTo(emoji) > 0, is(true));
        Map<String, List<Integer>> assigned = RangeAssignment.assign(List.of(0, 1), List.of(emoji, halfwidth));
        assertThat(assigned, is(Map.of(halfwidth, List.of(0), emoji, List.of(1))));
        assertThat(List.copyOf(assigned.keySet()), contains(halfwidth, emoji));
    }

    @Test
    void membersSortByBytesAcrossAsciiCaseAndPrefixes() {
        // Upper case before lower case (0x41 < 0x61), a prefix before its extensions, '_' (0x5F) between.
        Map<String, List<Integer>> assigned = RangeAssignment.assign(IntStream.range(0, 5).boxed().toList(),
                List.of("kp_b", "kp_a", "kp_B", "kp", "kp_a_1"));
        assertThat(List.copyOf(assigned.keySet()), contains("kp", "kp_B", "kp_a", "kp_a_1", "kp_b"));
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void utf8OrderEqualsUnsignedByteOrder(long seed) {
        String[] pieces = {"a", "B", "_", "~", "\u007f", "\u0080", "\u00e9", "\u07ff", "\u0800", "\ud7ff", "\ue000",
                "\uff61", "\uffff", "\ud800\udc00", "\ud83d\ude00", "\udbff\udfff", ""};
        Random random = new Random(seed);
        for (int n = 0; n < 2_000; n++) {
            String a = randomString(random, pieces);
            String b = randomString(random, pieces);
            int expected = Integer.signum(Arrays.compareUnsigned(a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    b.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            assertThat(a + " vs " + b, Integer.signum(Utf8Order.compare(a, b)), is(expected));
        }
    }

    private static String randomString(Random random, String[] pieces) {
        StringBuilder s = new StringBuilder();
        for (int i = random.nextInt(4); i > 0; i--) {
            s.append(pieces[random.nextInt(pieces.length)]);
        }
        return s.toString();
    }

    /** The original's {@code TestResolvePartitions}, self = {@code c}. */
    @Test
    void resolvesLikeTheOriginal() {
        Map<String, List<String>> subscriptions = new HashMap<>();
        subscriptions.put("a", List.of("t1", "t2", "t3"));
        subscriptions.put("b", List.of("t1", "t2", "t3"));
        subscriptions.put("c", List.of("t1", "t2", "t4", "t5"));
        subscriptions.put("d", List.of("t1", "t4"));
        subscriptions.put("e", List.of());
        subscriptions.put("f", null);
        Map<String, List<Integer>> partitions = Map.of(
                "t1", List.of(1, 2, 3, 4, 5),
                "t2", List.of(1, 2),
                "t3", List.of(1, 2, 3, 4, 5),
                "t4", List.of(1, 2, 3),
                "t5", List.of(1, 2, 3));

        Map<String, List<Integer>> resolved = RangeAssignment.resolvePartitions("c", subscriptions, partitions);

        assertThat(resolved, is(Map.of("t1", List.of(4), "t4", List.of(1, 2), "t5", List.of(1, 2, 3))));
        assertThat(List.copyOf(resolved.keySet()), contains("t1", "t4", "t5"));
    }

    /** The original's {@code TestResolvePartitionsEmpty}. */
    @Test
    void noSubscriptionsResolveNothing() {
        assertThat(RangeAssignment.resolvePartitions("c", Map.of(), Map.of("t1", List.of(0))), is(Map.of()));
        Map<String, List<String>> selfNull = new HashMap<>();
        selfNull.put("c", null);
        selfNull.put("a", List.of("t1"));
        assertThat(RangeAssignment.resolvePartitions("c", selfNull, Map.of("t1", List.of(0))), is(Map.of()));
        assertThat(RangeAssignment.resolvePartitions("c", Map.of("c", List.of()), Map.of("t1", List.of(0))),
                is(Map.of()));
    }

    @Test
    void topicsMissingFromMetadataAreSkipped() {
        Map<String, List<String>> subscriptions = Map.of("c", List.of("gone", "t1"), "a", List.of("gone", "t1"));
        assertThat(RangeAssignment.resolvePartitions("c", subscriptions, Map.of("t1", List.of(0, 1, 2))),
                is(Map.of("t1", List.of(2))));
        // A topic known with no partitions is no entry either.
        assertThat(RangeAssignment.resolvePartitions("c", subscriptions, Map.of("gone", List.of(),
                "t1", List.of(0, 1, 2))), is(Map.of("t1", List.of(2))));
    }

    @Test
    void aMemberListingATopicTwiceCountsOnce() {
        Map<String, List<String>> subscriptions = Map.of("a", List.of("t", "t"), "b", List.of("t"));
        assertThat(RangeAssignment.resolvePartitions("b", subscriptions, Map.of("t", List.of(0, 1))),
                is(Map.of("t", List.of(1))));
    }

    /**
     * Every member resolving from the same snapshot gets disjoint partitions that together cover every partition of
     * every subscribed topic: the property a mixed Go/Java group relies on.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13, 14, 15, 16})
    void allMembersTogetherCoverEachPartitionExactlyOnce(long seed) {
        Random random = new Random(seed);
        List<String> topics = List.of("t1", "t2", "t3", "t4");
        Map<String, List<Integer>> partitions = new LinkedHashMap<>();
        for (String topic : topics) {
            List<Integer> ids = new ArrayList<>(IntStream.range(0, random.nextInt(9)).boxed().toList());
            java.util.Collections.shuffle(ids, random);
            partitions.put(topic, ids);
        }
        Map<String, List<String>> subscriptions = new HashMap<>();
        for (int m = random.nextInt(7); m >= 0; m--) {
            subscriptions.put("kp_host_" + random.nextInt(1000),
                    topics.stream().filter(t -> random.nextBoolean()).toList());
        }
        for (String topic : topics) {
            Set<Integer> seen = new HashSet<>();
            boolean subscribed = false;
            for (Map.Entry<String, List<String>> member : subscriptions.entrySet()) {
                subscribed |= member.getValue().contains(topic);
                List<Integer> own = RangeAssignment.resolvePartitions(member.getKey(), subscriptions, partitions)
                        .getOrDefault(topic, List.of());
                for (Integer p : own) {
                    assertThat("partition " + p + " of " + topic + " twice", seen.add(p), is(true));
                }
                if (!own.isEmpty()) {
                    assertThat(member.getValue().contains(topic), is(true));
                }
            }
            assertThat(topic, seen, is(subscribed ? Set.copyOf(partitions.get(topic)) : Set.of()));
        }
    }
}
