package io.kafkapixy.security;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static io.kafkapixy.security.Operation.ALL;
import static io.kafkapixy.security.Operation.ALTER;
import static io.kafkapixy.security.Operation.DESCRIBE;
import static io.kafkapixy.security.Operation.READ;
import static io.kafkapixy.security.Operation.WRITE;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a named client may do: patterns (a name, {@code prefix*}, {@code *}), Kafka's operations (read, write and alter
 * allow describing too; all allows everything), and every rule counting, per resource, as Kafka's ACLs do.
 */
class NamedClientTest {

    private final NamedClient orders = new NamedClient("orders-writer", List.of(
            rule(Set.of(WRITE), List.of("orders.*"), List.of()),
            rule(Set.of(READ), List.of("payments"), List.of("orders-*")),
            rule(Set.of(DESCRIBE), List.of("*"), List.of())));

    @Test
    void aNameMatchesItselfAPrefixStarWhatStartsWithItAndAStarEverything() {
        assertTrue(new NamePattern("payments").matches("payments"));
        assertFalse(new NamePattern("payments").matches("payments2"));
        assertTrue(new NamePattern("orders.*").matches("orders.eu"));
        assertTrue(new NamePattern("orders.*").matches("orders."));
        assertFalse(new NamePattern("orders.*").matches("orders"));
        assertTrue(new NamePattern("*").matches("anything"));
    }

    @Test
    void aStarOnlyEndsAPattern() {
        assertThrows(IllegalArgumentException.class, () -> new NamePattern("or*ders"));
        assertThrows(IllegalArgumentException.class, () -> new NamePattern("*.dlt"));
        assertThrows(IllegalArgumentException.class, () -> new NamePattern(""));
    }

    @Test
    void writingNeedsWriteOnTheTopic() {
        assertTrue(orders.may(WRITE, "orders.eu", null));
        assertFalse(orders.may(WRITE, "payments", null), "read and describe do not allow writing");
        assertFalse(orders.may(WRITE, "audit", null));
    }

    @Test
    void readingNeedsReadOnTheTopicAndOnTheGroup() {
        assertTrue(orders.may(READ, "payments", "orders-billing"));
        assertFalse(orders.may(READ, "payments", "payments-app"), "not its group");
        assertFalse(orders.may(READ, "orders.eu", "orders-billing"), "write does not allow reading");
    }

    @Test
    void describingIsAllowedByItselfAndByEveryOtherOperationOnTheResource() {
        assertTrue(orders.mayDescribeTopic("audit"), "describe on *");
        assertTrue(orders.mayDescribeGroup("orders-billing"), "read on the group allows describing it");
        assertFalse(orders.mayDescribeGroup("payments-app"));
        NamedClient altering = new NamedClient("ops", List.of(rule(Set.of(ALTER), List.of("t"), List.of("g"))));
        assertTrue(altering.may(DESCRIBE, "t", "g"));
        assertFalse(altering.may(READ, "t", "g"), "alter moves offsets, it does not consume");
    }

    @Test
    void allAllowsEveryOperation() {
        NamedClient admin = new NamedClient("admin", List.of(rule(Set.of(ALL), List.of("*"), List.of("*"))));
        for (Operation o : Operation.values()) {
            assertTrue(admin.may(o, "any", "any"), o.word());
        }
        assertTrue(admin.mayDoEverything());
        assertFalse(orders.mayDoEverything());
    }

    @Test
    void theRuleThatMatchesFirstIsNotTheOnlyOneThatCounts() {
        NamedClient split = new NamedClient("split", List.of(
                rule(Set.of(DESCRIBE), List.of("jobs"), List.of()),
                rule(Set.of(READ), List.of("jobs"), List.of()),
                rule(Set.of(READ), List.of(), List.of("workers"))));

        assertTrue(split.may(READ, "jobs", "workers"), "topic from the second rule, group from the third");
        assertFalse(split.may(WRITE, "jobs", null));
    }

    @Test
    void aClientWithoutPermissionsMayNothing() {
        NamedClient nobody = NamedClient.withoutPermissions("svc-unknown");
        for (Operation o : Operation.values()) {
            assertFalse(nobody.may(o, "t", "g"), o.word());
        }
    }

    private static AccessRule rule(Set<Operation> ops, List<String> topics, List<String> groups) {
        return new AccessRule(ops, topics.stream().map(NamePattern::new).toList(),
                groups.stream().map(NamePattern::new).toList());
    }
}
