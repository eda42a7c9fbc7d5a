package io.kafkapixy.bench;

import java.nio.file.Files;
import java.nio.file.Path;

import io.kafkapixy.security.ClientsFile;
import io.kafkapixy.security.NamedClient;
import io.kafkapixy.security.Operation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The clients file the benchmark measures permissions with is one the proxy reads, and it lets the bench do its work. */
class BenchClientsTest {

    @TempDir
    Path dir;

    @Test
    void theBenchActsAsTheLastOfTheClientsAndOnlyItsLastRuleCoversTheBenchsTopicsAndGroups() throws Exception {
        Path file = dir.resolve("clients.yaml");
        String token = BenchClients.write(file, 1000);

        ClientsFile clients = ClientsFile.parse(Files.readString(file));
        assertEquals(1000, clients.clients().size());
        NamedClient bench = clients.byToken(token).orElseThrow();
        assertEquals("team-0999", bench.name());
        assertEquals(BenchClients.RULES, bench.allow().size());
        for (Operation op : Operation.values()) {
            assertTrue(bench.may(op, "bench-abc-1-produce", "bench-abc-2-consume"), op.name());
        }
        assertFalse(bench.mayDoEverything(), "checked rule by rule, as a tenant is");
        NamedClient other = clients.byToken("bench-token-0000").orElseThrow();
        assertEquals(BenchClients.RULES, other.allow().size());
        assertFalse(other.may(Operation.WRITE, "bench-abc-1-produce", null));
        assertTrue(other.may(Operation.WRITE, "team-0000.t0-x", null), "its own topics");
    }
}
