package io.kafkapixy.security;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import javax.security.auth.x500.X500Principal;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * The named clients of {@code auth.clients_file}: who each is (bearer tokens, JWT subjects, client certificate
 * subjects) and what it may do. Read strictly, since a mistake here opens or closes the API: an unknown key, an
 * unknown operation, a misplaced star, a credential two clients share or a client with no way in is refused with
 * where it is, and nothing of the file is used.
 *
 * <pre>
 * clients:
 *   - name: orders-writer
 *     tokens: [s3cr3t, "sha256:&lt;hex of the token's SHA-256&gt;"]
 *     jwt_subjects: [svc-orders]
 *     cert_subjects: ["CN=orders"]
 *     allow:
 *       - {operations: [write], topics: ["orders.*"]}
 *       - {operations: [read], topics: [payments], groups: ["orders-*"]}
 * </pre>
 *
 * A token is looked up by its SHA-256 digest, so the time a lookup takes says nothing about the tokens.
 */
public final class ClientsFile {

    private static final Set<String> CLIENT_KEYS = Set.of("name", "tokens", "jwt_subjects", "cert_subjects", "allow");
    private static final Set<String> RULE_KEYS = Set.of("operations", "topics", "groups");
    private static final String SHA256 = "sha256:";
    /**
     * Above SnakeYAML's default of 3 Mi code points, which about 3,000 clients of ten rules reach; what a parse needs
     * in heap: docs/operations.md#security.
     */
    private static final int MAX_CODE_POINTS = 64 * 1024 * 1024;
    private static final int MAX_ALIASES = 100_000;

    private final List<NamedClient> clients;
    private final Map<TokenDigest, NamedClient> byTokenDigest;
    private final Map<String, NamedClient> byJwtSubject;
    private final Map<String, NamedClient> byCertSubject;
    /** Tells this reading of the file from any other without keeping it (what a connection remembers). */
    final Object generation = new Object();

    private ClientsFile(List<NamedClient> clients, Map<TokenDigest, NamedClient> byTokenDigest,
                        Map<String, NamedClient> byJwtSubject, Map<String, NamedClient> byCertSubject) {
        this.clients = List.copyOf(clients);
        this.byTokenDigest = Map.copyOf(byTokenDigest);
        this.byJwtSubject = Map.copyOf(byJwtSubject);
        this.byCertSubject = Map.copyOf(byCertSubject);
    }

    /**
     * @throws IllegalArgumentException what is wrong and where ({@code clients[2] (name): allow[0].operations: ...})
     */
    public static ClientsFile parse(String yaml) {
        LoaderOptions options = new LoaderOptions();
        options.setCodePointLimit(MAX_CODE_POINTS);
        // a key given twice (two allow lists, two clients lists) would silently keep only one
        options.setAllowDuplicateKeys(false);
        // the default (50) protects against an alias bomb in untrusted input; this file is the operators', values are
        // read to a fixed depth, and a rule list shared by anchor among hundreds of clients is fair use
        options.setMaxAliasesForCollections(MAX_ALIASES);
        Builder b = new Builder();
        Object root;
        try {
            // entry by entry: a parse of the whole file's tree took about 50 times its size in heap
            root = EntryByEntryYaml.load(yaml, options, "clients", (entry, i) -> b.add(entry, "clients[" + i + "]"));
        } catch (MarkedYAMLException e) {
            Mark at = e.getProblemMark();
            throw new IllegalArgumentException("not YAML: " + e.getProblem()
                                               + (at == null ? "" : " (line " + (at.getLine() + 1) + ")"));
        } catch (YAMLException e) {
            throw new IllegalArgumentException("not YAML: " + e.getMessage().lines().findFirst().orElse(""));
        }
        Map<String, Object> top = map(root, "the file");
        unknownKeys(top, Set.of("clients"), "the file");
        // its entries were read one by one, above; what is left must still be the list that held them
        list(top.get("clients"), "clients");
        return new ClientsFile(b.clients, b.byTokenDigest, b.byJwtSubject, b.byCertSubject);
    }

    public List<NamedClient> clients() {
        return clients;
    }

    /** The client whose token this is. */
    public Optional<NamedClient> byToken(String token) {
        return Optional.ofNullable(byTokenDigest.get(TokenDigest.of(token)));
    }

    /** The client a valid JWT with this {@code sub} acts as. */
    public Optional<NamedClient> byJwtSubject(String subject) {
        return Optional.ofNullable(byJwtSubject.get(subject));
    }

    /** The client a verified certificate with this subject acts as (distinguished names compared canonically). */
    public Optional<NamedClient> byCertSubject(X500Principal subject) {
        return Optional.ofNullable(byCertSubject.get(subject.getName(X500Principal.CANONICAL)));
    }

    /** Reads the entries one by one, keeping every credential's owner so that none is given to two clients. */
    private static final class Builder {
        final List<NamedClient> clients = new ArrayList<>();
        final Map<TokenDigest, NamedClient> byTokenDigest = new HashMap<>();
        final Map<String, NamedClient> byJwtSubject = new HashMap<>();
        final Map<String, NamedClient> byCertSubject = new HashMap<>();
        final Set<String> names = new LinkedHashSet<>();

        void add(Object entry, String where) {
            Map<String, Object> c = map(entry, where);
            Object rawName = c.get("name");
            if (!(rawName instanceof String name) || name.isBlank()) {
                throw new IllegalArgumentException(where + ": a name is needed");
            }
            String at = where + " (" + name + ")";
            unknownKeys(c, CLIENT_KEYS, at);
            if (!names.add(name)) {
                throw new IllegalArgumentException(at + ": a second client of that name");
            }
            List<AccessRule> rules = new ArrayList<>();
            List<Object> allow = c.containsKey("allow") ? list(c.get("allow"), at + ": allow") : List.of();
            for (int i = 0; i < allow.size(); i++) {
                rules.add(rule(allow.get(i), at + ": allow[" + i + "]"));
            }
            NamedClient client = new NamedClient(name, rules);
            int ways = 0;
            for (String token : strings(c.get("tokens"), at + ": tokens")) {
                TokenDigest digest = token.startsWith(SHA256) ? digestGiven(token, at) : TokenDigest.of(token);
                claim(byTokenDigest, digest, client, at + ": a token");
                ways++;
            }
            for (String subject : strings(c.get("jwt_subjects"), at + ": jwt_subjects")) {
                claim(byJwtSubject, subject, client, at + ": jwt subject " + subject);
                ways++;
            }
            for (String subject : strings(c.get("cert_subjects"), at + ": cert_subjects")) {
                String canonical;
                try {
                    canonical = new X500Principal(subject).getName(X500Principal.CANONICAL);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(at + ": cert_subjects: not a distinguished name: " + subject);
                }
                claim(byCertSubject, canonical, client, at + ": cert subject " + subject);
                ways++;
            }
            if (ways == 0) {
                throw new IllegalArgumentException(at + ": no tokens, jwt_subjects or cert_subjects: no way in");
            }
            clients.add(client);
        }

        private static TokenDigest digestGiven(String token, String at) {
            String hex = token.substring(SHA256.length()).toLowerCase(Locale.ROOT);
            if (!hex.matches("[0-9a-f]{64}")) {
                throw new IllegalArgumentException(at + ": tokens: sha256: takes the 64 hex digits of a SHA-256");
            }
            return TokenDigest.ofHex(hex);
        }

        private static <K> void claim(Map<K, NamedClient> owners, K key, NamedClient client, String what) {
            NamedClient before = owners.putIfAbsent(key, client);
            if (before != null) {
                throw new IllegalArgumentException(what + " is also " + before.name() + "'s");
            }
        }
    }

    private static AccessRule rule(Object entry, String at) {
        Map<String, Object> r = map(entry, at);
        unknownKeys(r, RULE_KEYS, at);
        Set<Operation> operations = new LinkedHashSet<>();
        for (String word : strings(r.get("operations"), at + ".operations")) {
            operations.add(Operation.named(word).orElseThrow(() -> new IllegalArgumentException(
                    at + ".operations: unknown operation \"" + word + "\" (write, read, describe, alter, all)")));
        }
        if (operations.isEmpty()) {
            throw new IllegalArgumentException(at + ": no operations");
        }
        List<NamePattern> topics = patterns(r.get("topics"), at + ".topics");
        List<NamePattern> groups = patterns(r.get("groups"), at + ".groups");
        if (topics.isEmpty() && groups.isEmpty()) {
            throw new IllegalArgumentException(at + ": no topics or groups");
        }
        return new AccessRule(operations, topics, groups);
    }

    private static List<NamePattern> patterns(Object value, String at) {
        List<NamePattern> out = new ArrayList<>();
        for (String text : strings(value, at)) {
            try {
                out.add(new NamePattern(text));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(at + ": " + e.getMessage());
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value, String at) {
        if (!(value instanceof Map<?, ?> m)) {
            throw new IllegalArgumentException(at + ": a mapping is needed");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(String.valueOf(k), v));
        return out;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object value, String at) {
        if (!(value instanceof List<?> l)) {
            throw new IllegalArgumentException(at + ": a list is needed");
        }
        return (List<Object>) l;
    }

    /** A list of scalars (a lone scalar is a list of one); none when absent. */
    private static List<String> strings(Object value, String at) {
        if (value == null) {
            return List.of();
        }
        List<Object> items = value instanceof List<?> ? list(value, at) : List.of(value);
        List<String> out = new ArrayList<>();
        for (Object item : items) {
            if (item == null || item instanceof Map<?, ?> || item instanceof List<?>) {
                throw new IllegalArgumentException(at + ": names are needed");
            }
            out.add(String.valueOf(item));
        }
        return out;
    }

    private static void unknownKeys(Map<String, Object> m, Set<String> known, String at) {
        for (String key : m.keySet()) {
            if (!known.contains(key)) {
                throw new IllegalArgumentException(at + ": unknown key " + key);
            }
        }
    }
}
