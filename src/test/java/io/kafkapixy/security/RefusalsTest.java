package io.kafkapixy.security;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.kafkapixy.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every refusal is counted by client and operation; the log names the client and the resource, once a minute at most
 * for one client and operation, and says how many refusals it left out. On a fake clock.
 */
class RefusalsTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-07T12:00:00Z"));
    private final Map<String, Integer> counted = new ConcurrentHashMap<>();
    private final List<String> logged = new ArrayList<>();
    private final Refusals refusals = new Refusals((client, op) -> counted.merge(client + "/" + op, 1, Integer::sum),
            clock, logged::add);
    private final NamedClient dashboard = NamedClient.withoutPermissions("dashboard");

    @Test
    void everyRefusalIsCountedAndTheFirstLogged() {
        refusals.refused(dashboard, Operation.WRITE, "topic orders");
        refusals.refused(dashboard, Operation.WRITE, "topic orders");
        refusals.refused(dashboard, Operation.ALTER, "group payments");

        assertEquals(Map.of("dashboard/write", 2, "dashboard/alter", 1), counted);
        assertEquals(List.of("Refused dashboard to write topic orders", "Refused dashboard to alter group payments"),
                logged);
    }

    @Test
    void aClientInALoopIsLoggedOnceAMinuteWithHowManyWereLeftOut() {
        for (int i = 0; i < 50; i++) {
            refusals.refused(dashboard, Operation.WRITE, "topic orders");
            clock.advance(Duration.ofSeconds(2));
        }

        assertEquals(List.of("Refused dashboard to write topic orders",
                "Refused dashboard to write topic orders (and 29 more refused since the last line)"), logged);
        assertEquals(50, counted.get("dashboard/write"));
    }
}
