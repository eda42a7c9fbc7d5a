package io.kafkapixy.server;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import io.kafkapixy.testing.Background;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several instances of the proxy in one consumer group, each with its own clients: the partitions are split, move on
 * join, leave and subscription expiry, and nothing is lost on the way. Membership is read back from Kafka with a plain
 * admin client.
 */
class GroupMembershipTest {

    private static final Duration REBALANCE = Duration.ofSeconds(60);

    private final TestKafka kafka = TestKafka.get();
    private final String topic = TestKafka.uniqueTopic("members");
    private final String group = TestKafka.uniqueTopic("mgroup");

    @Test
    void twoInstancesSplitThePartitionsAndDeliverEveryMessageOnce() {
        kafka.createTopic(topic, 4);
        try (RunningPixy a = start("a", ConsumerSettingsBuilder.fast());
             RunningPixy b = start("b", ConsumerSettingsBuilder.fast())) {
            awaitMembers(List.of(a, b), 2);
            Set<String> produced = produce(40);

            Map<RunningPixy, Set<Integer>> partitionsServed = new HashMap<>();
            Set<String> consumed = consumeAll(List.of(a, b), 40, partitionsServed);

            assertEquals(produced, consumed);
            Set<Integer> servedByA = partitionsServed.getOrDefault(a, Set.of());
            Set<Integer> servedByB = partitionsServed.getOrDefault(b, Set.of());
            assertEquals(2, servedByA.size(), "a served " + servedByA);
            assertEquals(2, servedByB.size(), "b served " + servedByB);
            assertTrue(java.util.Collections.disjoint(servedByA, servedByB));
        }
    }

    @Test
    void whenAnInstanceLeavesTheOtherTakesOverItsPartitionsAndOnlyUnackedMessagesComeAgain() {
        kafka.createTopic(topic, 4);
        RunningPixy b = start("b", ConsumerSettingsBuilder.fast());
        try (RunningPixy a = start("a", ConsumerSettingsBuilder.fast())) {
            awaitMembers(List.of(a, b), 2);
            produce(40);
            // b takes messages without acking every other one; a does not consume yet.
            Set<String> unackedOnB = new HashSet<>();
            Set<String> ackedOnB = new HashSet<>();
            for (int i = 0; i < 10; i++) {
                JsonObject m = object(b.get(messages() + "&noAck").body());
                String value = decode(m.getString("value"));
                if (i % 2 == 0) {
                    assertEquals(200, b.post("/topics/" + topic + "/acks?group=" + group + "&partition="
                            + m.getInt("partition") + "&offset=" + m.getJsonNumber("offset"), "text/plain", "")
                            .statusCode());
                    ackedOnB.add(value);
                } else {
                    unackedOnB.add(value);
                }
            }
            b.close();
            awaitMembers(List.of(a), 1);

            Set<String> rest = consumeAll(List.of(a), 40 - ackedOnB.size(), new HashMap<>());

            assertTrue(rest.containsAll(unackedOnB), "unacked messages are delivered again");
            assertTrue(java.util.Collections.disjoint(rest, ackedOnB), "acked messages are not delivered again");
            Map<Integer, Long> ends = kafka.endOffsets(topic, 4);
            TestKafka.Waits.until(Duration.ofSeconds(30), "everything committed", () -> {
                var c = kafka.committed(group, topic);
                return c.size() == 4 && c.entrySet().stream().allMatch(e -> e.getValue().offset() == ends.get(e.getKey()));
            });
        }
    }

    @Test
    void anInstanceWhoseSubscriptionExpiresLeavesTheGroup() {
        kafka.createTopic(topic, 4);
        ConsumerSettingsBuilder shortSubscription = ConsumerSettingsBuilder.fast()
                .subscriptionTimeout(Duration.ofSeconds(3));
        try (RunningPixy a = start("a", ConsumerSettingsBuilder.fast());
             RunningPixy b = start("b", shortSubscription)) {
            awaitMembers(List.of(a, b), 2);

            // Only a keeps asking; b's subscription expires and its partitions move to a.
            TestKafka.Waits.until(REBALANCE, "a owns all four partitions", () -> {
                a.get(messages());
                Map<String, Set<Integer>> owners = kafka.assignment(group, topic);
                return owners.size() == 1 && owners.values().iterator().next().size() == 4;
            });
            Set<String> produced = produce(8);
            assertEquals(produced, consumeAll(List.of(a), 8, new HashMap<>()));
        }
    }

    @Test
    void threeInstancesShareSixPartitionsTwoEach() {
        kafka.createTopic(topic, 6);
        try (RunningPixy a = start("a", ConsumerSettingsBuilder.fast());
             RunningPixy b = start("b", ConsumerSettingsBuilder.fast());
             RunningPixy c = start("c", ConsumerSettingsBuilder.fast())) {
            // Three members that each hold something can still be mid-rebalance (the cooperative assignor takes a
            // partition away in one round and gives it out in the next), so wait for the settled assignment.
            awaitAssignment(List.of(a, b, c), "six partitions, two each", owners -> {
                Set<Integer> all = new TreeSet<>();
                owners.values().forEach(all::addAll);
                return owners.size() == 3 && all.equals(Set.of(0, 1, 2, 3, 4, 5))
                       && owners.values().stream().allMatch(parts -> parts.size() == 2);
            });
        }
    }

    @Test
    void aSessionTimeoutTheBrokersRefuseFailsTheGroupsRequestsWithTheBrokersReason() throws Exception {
        kafka.createTopic(topic, 1);
        try (RunningPixy a = start("a", ConsumerSettingsBuilder.fast().sessionTimeout(Duration.ofSeconds(2)))) {
            HttpResponse<String> rs = a.get("/topics/" + topic + "/messages?group=" + group);

            assertEquals(500, rs.statusCode(), rs.body());
            assertTrue(io.kafkapixy.testing.JsonBodies.error(rs.body()).contains(
                    "The session timeout is not within the range allowed by the broker"), rs.body());
        }
    }

    private RunningPixy start(String name, ConsumerSettingsBuilder consumer) {
        return RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_" + name, consumer));
    }

    /**
     * Keeps a long poll going on every instance (a subscription lives while requests come) until Kafka reports
     * {@code members} members with partitions each.
     */
    private void awaitMembers(List<RunningPixy> instances, int members) {
        awaitAssignment(instances, members + " members with partitions",
                owners -> owners.size() == members && owners.values().stream().noneMatch(Set::isEmpty));
    }

    /** Keeps every instance's member asking (so none expires) until the group's assignment is {@code wanted}. */
    private void awaitAssignment(List<RunningPixy> instances, String what,
                                 java.util.function.Predicate<Map<String, Set<Integer>>> wanted) {
        TestKafka.Waits.until(REBALANCE, what, () -> {
            List<CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
            for (RunningPixy p : instances) {
                polls.add(CompletableFuture.supplyAsync(() -> p.get(messages() + "&noAck"), Background.THREADS));
            }
            polls.forEach(CompletableFuture::join);
            return wanted.test(kafka.assignment(group, topic));
        });
    }

    /** Spreads {@code n} messages over the topic's partitions. */
    private Set<String> produce(int n) {
        int partitions = kafka.assignment(group, topic).values().stream().mapToInt(Set::size).sum();
        Set<String> produced = new HashSet<>();
        for (int i = 0; i < n; i++) {
            kafka.produce(topic, i % partitions, null, "m" + i);
            produced.add("m" + i);
        }
        return produced;
    }

    private Set<String> consumeAll(List<RunningPixy> instances, int n, Map<RunningPixy, Set<Integer>> served) {
        return RunningPixy.consumeAll(instances, messages(), n, REBALANCE, served);
    }

    private String messages() {
        return "/topics/" + topic + "/messages?group=" + group;
    }

    private static String decode(String b64) {
        return new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8);
    }
}
