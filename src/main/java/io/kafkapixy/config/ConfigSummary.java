package io.kafkapixy.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.kafkapixy.errors.GoStrings;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * The effective configuration as YAML for the startup log: the original's key names and order (those of
 * {@link ConfigLoader}; the free-form {@code params} sorted), durations in Go syntax, every secret masked.
 *
 * <p>Secrets are recognised by the name of their key, not field by field, so that a secret added later is masked
 * even if whoever adds it never reads this class: a key is secret when it contains {@code password},
 * {@code passwd}, {@code secret}, {@code token}, {@code credential} or {@code jaas}, or ends with {@code key}
 * ({@code api_key}, {@code private_key}), ignoring case. A non-empty secret prints as {@code "******"}; an empty
 * one as {@code ""}, which tells an operator it is unset and nothing else. Keys that say where a secret lives, ending
 * in {@code _file}, {@code _path} or {@code _env} ({@code key_path}, {@code bearer_tokens_file}), are not secret:
 * the path or variable name is shown and the file or variable is never read here. The same rule covers the
 * free-form {@code params} of {@code logging} entries.
 *
 * <p>The output is valid YAML that {@link ConfigLoader} reads back to the same configuration, secrets aside.
 * A field added to a config record must be added here too; {@code ConfigSummaryTest} fails until it is. Stateless.
 */
public final class ConfigSummary {

    static final String MASK = "******";

    private static final Pattern SECRET_KEY =
            Pattern.compile("(?i)(?!.*_(file|path|env)$)(.*(password|passwd|secret|token|credential|jaas).*|.*key)");

    /** Characters that need no quotes in YAML; such a text is still quoted when YAML would read it as a number etc. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./@+][A-Za-z0-9_./:@+-]*");

    private static final Resolver YAML_TYPES = new Resolver();

    private static final String INDENT = "  ";

    private ConfigSummary() {
    }

    /** The config as YAML, one key per line, no trailing newline. */
    public static String render(PixyConfig config) {
        StringBuilder out = new StringBuilder();
        writeMap(out, tree(config), 0);
        return out.toString().stripTrailing();
    }

    static boolean isSecret(String key) {
        return SECRET_KEY.matcher(key).matches();
    }

    private static Map<String, Object> tree(PixyConfig c) {
        Map<String, Object> root = new LinkedHashMap<>();
        // the original's order: the addresses and the default cluster first; this project's keys after logging
        Map<String, Object> top = c.settings().byName();
        Object accessLog = top.remove(PixyConfig.ACCESS_LOG.name());
        Object inflightRows = top.remove(PixyConfig.INFLIGHT_ROWS.name());
        Object inflightMessages = top.remove(PixyConfig.INFLIGHT_MESSAGES.name());
        root.putAll(top);
        Map<String, Object> proxies = new LinkedHashMap<>();
        c.proxies().forEach((name, p) -> proxies.put(name, proxy(p)));
        root.put("proxies", proxies);
        root.put("tls", c.tls().settings().byName());
        root.put("logging", c.logging().stream()
                .map(l -> map("name", l.name(), "severity", l.severity(), "params", new TreeMap<>(l.params())))
                .toList());
        root.put(PixyConfig.ACCESS_LOG.name(), accessLog);
        root.put(PixyConfig.INFLIGHT_ROWS.name(), inflightRows);
        root.put(PixyConfig.INFLIGHT_MESSAGES.name(), inflightMessages);
        Map<String, Object> auth = new LinkedHashMap<>(c.auth().settings().byName());
        auth.put("jwt", c.auth().jwtSettings().byName());
        root.put("auth", auth);
        root.put("limits", c.limits().settings().byName());
        return root;
    }

    private static Map<String, Object> proxy(ProxyConfig p) {
        KafkaConfig k = p.kafka();
        NetConfig n = p.net();
        SaslConfig sasl = n.sasl();
        ZooKeeperConfig z = p.zooKeeper();
        ProducerConfig pr = p.producer();
        ConsumerConfig co = p.consumer();
        return map(
                "client_id", p.clientId(),
                "kafka", k.settings().byName(),
                "net", withSection(n.settings().byName(), "sasl", sasl.settings().byName()),
                "zoo_keeper", zooKeeper(z, co.membership()),
                "producer", pr.settings().byName(),
                "consumer", co.settings().byName());
    }

    /** An ordered map from alternating keys and values. */
    /**
     * {@code seed_peers} shows when the config gave them or ZooKeeper membership uses them: the default
     * {@code localhost:2181} of a {@code kafka}-mode instance is no ZooKeeper to check (see {@link ZooKeeperConfig}),
     * and leaving it out keeps the summary loading back to the same config.
     */
    private static Map<String, Object> zooKeeper(ZooKeeperConfig z, ConsumerConfig.Membership membership) {
        Map<String, Object> m = z.settings().byName();
        if (!z.named() && membership != ConsumerConfig.Membership.ZOOKEEPER) {
            m.remove(ZooKeeperConfig.SEED_PEERS.name());
        }
        return m;
    }

    /** {@code section} with {@code key: value} added at its end. */
    private static Map<String, Object> withSection(Map<String, Object> section, String key, Object value) {
        section.put(key, value);
        return section;
    }

    private static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    private static void writeMap(StringBuilder out, Map<?, ?> map, int depth) {
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String key = String.valueOf(e.getKey());
            out.append(INDENT.repeat(depth)).append(scalar(key)).append(':');
            writeValue(out, key, e.getValue(), depth);
        }
    }

    /** Writes what follows {@code key:}, including the line break(s). */
    private static void writeValue(StringBuilder out, String key, Object value, int depth) {
        if (isSecret(key)) {
            out.append(' ').append(isEmpty(value) ? "\"\"" : "\"" + MASK + "\"").append('\n');
        } else if (value instanceof Map<?, ?> m && !m.isEmpty()) {
            out.append('\n');
            writeMap(out, m, depth + 1);
        } else if (value instanceof List<?> list && !list.isEmpty() && list.getFirst() instanceof Map) {
            out.append('\n');
            for (Object item : list) {
                writeListItem(out, (Map<?, ?>) item, depth + 1);
            }
        } else {
            out.append(' ').append(inline(value)).append('\n');
        }
    }

    /** {@code - a: 1} then the other keys aligned under {@code a}. */
    private static void writeListItem(StringBuilder out, Map<?, ?> item, int depth) {
        if (item.isEmpty()) {
            out.append(INDENT.repeat(depth)).append("- {}\n");
            return;
        }
        StringBuilder body = new StringBuilder();
        writeMap(body, item, depth + 1);
        String text = body.toString();
        String firstIndent = INDENT.repeat(depth + 1);
        out.append(INDENT.repeat(depth)).append("- ").append(text.substring(firstIndent.length()));
    }

    private static String inline(Object value) {
        return switch (value) {
            case Map<?, ?> m -> "{}"; // only an empty one gets here: writeValue writes the others as blocks
            case List<?> list -> list.stream().map(ConfigSummary::inline).collect(Collectors.joining(", ", "[", "]"));
            case Duration d -> Durations.format(d);
            case Enum<?> e -> e.name().toLowerCase(Locale.ROOT);
            case Boolean b -> b.toString();
            case Number n -> n.toString();
            default -> scalar(String.valueOf(value));
        };
    }

    private static String scalar(String s) {
        boolean plain = PLAIN.matcher(s).matches() && YAML_TYPES.resolve(NodeId.scalar, s, true).equals(Tag.STR);
        return plain ? s : GoStrings.quote(s);
    }

    private static boolean isEmpty(Object value) {
        return switch (value) {
            case null -> true;
            case String s -> s.isEmpty();
            case Map<?, ?> m -> m.isEmpty();
            case List<?> l -> l.isEmpty();
            default -> false;
        };
    }
}
