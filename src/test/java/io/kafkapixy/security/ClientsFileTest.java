package io.kafkapixy.security;

import javax.security.auth.x500.X500Principal;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A clients file names each client, its ways in and its permissions; it is read strictly, and a mistake is refused
 * with where it is, so that it neither opens nor closes the API by surprise.
 */
class ClientsFileTest {

    private static final String FILE = """
            clients:
              - name: orders-writer
                tokens: [s3cr3t]
                jwt_subjects: [svc-orders]
                cert_subjects: ["CN=orders, O=Shop"]
                allow:
                  - {operations: [write], topics: ["orders.*"]}
                  - {operations: [read], topics: [payments], groups: ["orders-*"]}
              - name: dashboard
                tokens: ["sha256:%s"]
                allow:
                  - {operations: [describe], topics: ["*"], groups: ["*"]}
            """.formatted(TokenDigest.of("dash-token").hex());

    @Test
    void aFileOfThousandsOfClientsIsReadWhole() {
        StringBuilder yaml = new StringBuilder("clients:\n");
        int n = 4_000;
        for (int i = 0; i < n; i++) {
            yaml.append("  - name: team-").append(i).append("\n    tokens: [token-").append(i).append("]\n    allow:\n");
            for (int r = 0; r < 10; r++) {
                yaml.append("      - {operations: [read], topics: [\"team-").append(i).append(".t").append(r)
                        .append("*\"], groups: [\"team-").append(i).append("-g").append(r).append("*\"]}\n");
            }
        }
        assertTrue(yaml.length() > 3 * 1024 * 1024, "over the YAML library's default limit: " + yaml.length());

        ClientsFile file = ClientsFile.parse(yaml.toString());

        assertEquals(n, file.clients().size());
        NamedClient last = file.byToken("token-" + (n - 1)).orElseThrow();
        assertTrue(last.may(Operation.READ, "team-" + (n - 1) + ".t9x", "team-" + (n - 1) + "-g9"));
    }

    @Test
    void eachCredentialLeadsToItsClient() {
        ClientsFile file = ClientsFile.parse(FILE);

        assertEquals("orders-writer", file.byToken("s3cr3t").orElseThrow().name());
        assertEquals("dashboard", file.byToken("dash-token").orElseThrow().name(), "a token given as its digest");
        assertEquals("orders-writer", file.byJwtSubject("svc-orders").orElseThrow().name());
        assertEquals("orders-writer", file.byCertSubject(new X500Principal("cn=orders,o=Shop")).orElseThrow().name(),
                "distinguished names compared canonically");
        assertTrue(file.byToken("S3CR3T").isEmpty());
        assertTrue(file.byJwtSubject("svc-other").isEmpty());
        assertEquals(2, file.clients().size());
    }

    @Test
    void theRulesAreTheClientsPermissions() {
        NamedClient orders = ClientsFile.parse(FILE).byToken("s3cr3t").orElseThrow();

        assertTrue(orders.may(Operation.WRITE, "orders.eu", null));
        assertTrue(orders.may(Operation.READ, "payments", "orders-billing"));
        assertFalse(orders.may(Operation.READ, "payments", "other"));
    }

    @Test
    void mistakesAreRefusedWithWhereTheyAre() {
        assertEquals("clients[0] (a): unknown key token", error("""
                clients:
                  - {name: a, token: [x]}
                """));
        assertEquals("clients[0] (a): allow[0].operations: unknown operation \"wirte\" (write, read, describe, "
                     + "alter, all)", error("""
                clients:
                  - {name: a, tokens: [x], allow: [{operations: [wirte], topics: [t]}]}
                """));
        assertEquals("clients[0] (a): allow[0].topics: or*ders: a star only at the end (prefix*) or alone (*)",
                error("""
                clients:
                  - {name: a, tokens: [x], allow: [{operations: [write], topics: ["or*ders"]}]}
                """));
        assertEquals("clients[0] (a): allow[0]: no topics or groups", error("""
                clients:
                  - {name: a, tokens: [x], allow: [{operations: [write]}]}
                """));
        assertEquals("clients[1] (b): a token is also a's", error("""
                clients:
                  - {name: a, tokens: [x]}
                  - {name: b, tokens: [x]}
                """));
        assertEquals("clients[1] (a): a second client of that name", error("""
                clients:
                  - {name: a, tokens: [x]}
                  - {name: a, tokens: [y]}
                """));
        assertEquals("clients[0] (a): no tokens, jwt_subjects or cert_subjects: no way in", error("""
                clients:
                  - {name: a, allow: [{operations: [all], topics: ["*"]}]}
                """));
        assertEquals("clients[0]: a name is needed", error("""
                clients:
                  - {tokens: [x]}
                """));
        assertEquals("clients[0] (a): tokens: sha256: takes the 64 hex digits of a SHA-256", error("""
                clients:
                  - {name: a, tokens: ["sha256:abc"]}
                """));
        assertEquals("the file: unknown key client", error("client: []\n"));
        assertEquals("clients: a list is needed", error("clients: {}\n"));
        assertEquals("clients[1]: a mapping is needed", error("clients:\n  - {name: a, tokens: [x]}\n  - b\n"));
        assertEquals("the file: a mapping is needed", error("- {name: a, tokens: [x]}\n"));
        assertTrue(error("clients:\n  - {name: a, tokens: [x]\n").startsWith("not YAML: "));
        assertEquals("not YAML: found duplicate key tokens (line 4)", error("""
                clients:
                  - name: a
                    tokens: [x]
                    tokens: [y]
                """));
        assertTrue(error("clients:\n  - {name: a, tokens: [x]}\nclients:\n  - {name: b, tokens: [y]}\n")
                .startsWith("not YAML: found duplicate key clients"), "a second list is not added to the first");
        assertEquals("the file: a mapping is needed", error("- clients:\n    - {name: a, tokens: [x]}\n"));
    }

    @Test
    void anchorsAliasesAndMergeKeysWorkAcrossClients() {
        ClientsFile file = ClientsFile.parse("""
                clients:
                  - name: a
                    tokens: [ta]
                    allow: &readers
                      - {operations: [read], topics: ["orders.*"], groups: ["orders-*"]}
                  - &base
                    name: b
                    tokens: [tb]
                    allow: *readers
                  - <<: *base
                    name: c
                    tokens: [tc]
                """);

        for (String token : new String[] {"ta", "tb", "tc"}) {
            NamedClient client = file.byToken(token).orElseThrow();
            assertTrue(client.may(Operation.READ, "orders.eu", "orders-billing"), client.name());
            assertFalse(client.may(Operation.WRITE, "orders.eu", null), client.name());
        }
        assertEquals(java.util.List.of("a", "b", "c"), file.clients().stream().map(NamedClient::name).toList());
    }

    @Test
    void hundredsOfClientsMayShareOneRuleListByAnchor() {
        StringBuilder yaml = new StringBuilder("""
                clients:
                  - name: c0
                    tokens: [t0]
                    allow: &readers
                      - {operations: [read], topics: ["orders.*"], groups: ["orders-*"]}
                """);
        for (int i = 1; i < 300; i++) {
            yaml.append("  - {name: c").append(i).append(", tokens: [t").append(i).append("], allow: *readers}\n");
        }

        ClientsFile file = ClientsFile.parse(yaml.toString());

        assertTrue(file.byToken("t299").orElseThrow().may(Operation.READ, "orders.eu", "orders-billing"));
    }

    private static String error(String yaml) {
        return assertThrows(IllegalArgumentException.class, () -> ClientsFile.parse(yaml)).getMessage();
    }
}
