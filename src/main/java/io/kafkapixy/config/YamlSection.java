package io.kafkapixy.config;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * One YAML mapping of the config file, read key by key with yaml.v2's (non-strict) decoding rules:
 * <ul>
 *   <li>a missing key keeps the caller's default; a duplicated key takes its last value;</li>
 *   <li>a key with an empty (null) value takes the zero value of its type: {@code ""}, {@code 0}, {@code false},
 *       {@code 0s}, {@code []}, as in the original; an empty section is treated as an empty mapping, so it keeps
 *       every default;</li>
 *   <li>a string key takes the text of any scalar ({@code version: 2.8} is {@code "2.8"});</li>
 *   <li>an int key takes a YAML integer, or a float truncated toward zero; a bool key takes a YAML bool; a duration
 *       key takes Go duration syntax or a number of nanoseconds ({@link Durations#fromYaml});</li>
 *   <li>keys never read are reported by {@link Report#unknownKeys()} and otherwise ignored.</li>
 * </ul>
 * A value of the wrong type is recorded in the shared {@link Report} as {@code <path.key>: <problem>} and the default
 * is returned, so one pass finds every type error in the document.
 */
final class YamlSection {

    /** What one decoding pass found wrong or ignored. Not thread-safe: one per document. */
    static final class Report {
        private final List<String> errors = new ArrayList<>();
        private final List<YamlSection> sections = new ArrayList<>();
        private final Values values = new Values();

        void error(String problem) {
            errors.add(problem);
        }

        List<String> errors() {
            return errors;
        }

        /** Full paths of keys present in the document but not part of the schema. */
        List<String> unknownKeys() {
            List<String> out = new ArrayList<>();
            for (YamlSection s : sections) {
                for (String key : s.entries.keySet()) {
                    if (!s.read.contains(key)) {
                        out.add(s.pathOf(key));
                    }
                }
            }
            return out;
        }
    }

    /** SnakeYAML's safe constructor, used only to build scalars whose resolved tag is int, float or bool. */
    private static final class Values extends SafeConstructor {
        Values() {
            super(new LoaderOptions());
        }

        Object scalar(ScalarNode node) {
            return constructObject(node);
        }

        /** Applies YAML merge keys ({@code <<: *anchor}) so that merged entries read like written ones. */
        void flatten(MappingNode node) {
            flattenMapping(node);
        }
    }

    private final String path;
    private final Report report;
    private final Map<String, Node> entries = new LinkedHashMap<>();
    private final Set<String> read = new HashSet<>();

    /** @param node a mapping; {@code null} or a YAML null reads as an empty mapping; anything else is an error */
    YamlSection(String path, Node node, Report report) {
        this.path = path;
        this.report = report;
        report.sections.add(this);
        if (node instanceof MappingNode mapping) {
            report.values.flatten(mapping);
            for (NodeTuple tuple : mapping.getValue()) {
                if (tuple.getKeyNode() instanceof ScalarNode key) {
                    entries.put(key.getValue(), tuple.getValueNode());
                }
            }
        } else if (node != null && !isNull(node)) {
            report.error((path.isEmpty() ? "" : path + ": ") + cannotUnmarshal(node, "a mapping"));
        }
    }

    /** The keys of this mapping in file order; reading them marks them all as known. */
    List<String> keys() {
        read.addAll(entries.keySet());
        return List.copyOf(entries.keySet());
    }

    boolean has(String key) {
        return entries.containsKey(key);
    }

    /** Records a problem that is not tied to one key (the original's enum errors carry no key). */
    void error(String problem) {
        report.error(problem);
    }

    YamlSection section(String key) {
        return new YamlSection(pathOf(key), take(key), report);
    }

    /** The text of a scalar value; empty if the key is absent. */
    Optional<String> text(String key) {
        Node node = take(key);
        if (node == null) {
            return Optional.empty();
        }
        if (node instanceof ScalarNode scalar) {
            return Optional.of(isNull(scalar) ? "" : scalar.getValue());
        }
        typeError(key, node, "string");
        return Optional.empty();
    }

    /** The text of a scalar value, without reporting a value of another type (its reader reports that). */
    Optional<String> scalarText(String key) {
        return entries.get(key) instanceof ScalarNode scalar ? Optional.of(isNull(scalar) ? "" : scalar.getValue())
                : Optional.empty();
    }

    String string(String key, String dflt) {
        return text(key).orElse(dflt);
    }

    int integer(String key, int dflt) {
        Node node = take(key);
        if (node == null) {
            return dflt;
        }
        if (isNull(node)) {
            return 0;
        }
        Object value = constructed(node, Tag.INT, Tag.FLOAT);
        long wide;
        if (value instanceof Integer || value instanceof Long) {
            wide = ((Number) value).longValue();
        } else if (value instanceof BigInteger b && b.bitLength() <= 63) {
            wide = b.longValue();
        } else if (value instanceof Double d && d >= Long.MIN_VALUE && d <= Long.MAX_VALUE) {
            wide = d.longValue();
        } else if (value instanceof Number) {
            return outOfRange(key, node, dflt);
        } else {
            typeError(key, node, "int");
            return dflt;
        }
        if (wide < Integer.MIN_VALUE || wide > Integer.MAX_VALUE) {
            return outOfRange(key, node, dflt);
        }
        return (int) wide;
    }

    boolean bool(String key, boolean dflt) {
        Node node = take(key);
        if (node == null) {
            return dflt;
        }
        if (isNull(node)) {
            return false;
        }
        if (constructed(node, Tag.BOOL) instanceof Boolean b) {
            return b;
        }
        typeError(key, node, "bool");
        return dflt;
    }

    Duration duration(String key, Duration dflt) {
        Node node = take(key);
        if (node == null) {
            return dflt;
        }
        if (isNull(node)) {
            return Duration.ZERO;
        }
        Object value = constructed(node, Tag.INT, Tag.FLOAT);
        if (value == null && node instanceof ScalarNode scalar && scalar.getTag().equals(Tag.STR)) {
            value = scalar.getValue();
        }
        if (value == null) {
            typeError(key, node, "time.Duration");
            return dflt;
        }
        try {
            return Durations.fromYaml(value);
        } catch (IllegalArgumentException e) {
            report.error(pathOf(key) + ": " + e.getMessage());
            return dflt;
        }
    }

    List<String> strings(String key, List<String> dflt) {
        Node node = take(key);
        if (node == null) {
            return dflt;
        }
        if (isNull(node)) {
            return List.of();
        }
        if (!(node instanceof SequenceNode seq)) {
            typeError(key, node, "[]string");
            return dflt;
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < seq.getValue().size(); i++) {
            Node item = seq.getValue().get(i);
            if (item instanceof ScalarNode scalar) {
                out.add(isNull(scalar) ? "" : scalar.getValue());
            } else {
                report.error(pathOf(key) + "[" + i + "]: " + cannotUnmarshal(item, "string"));
                return dflt;
            }
        }
        return out;
    }

    /** A sequence of mappings; absent or null is an empty list. */
    List<YamlSection> sections(String key) {
        Node node = take(key);
        if (node == null || isNull(node)) {
            return List.of();
        }
        if (!(node instanceof SequenceNode seq)) {
            typeError(key, node, "a list");
            return List.of();
        }
        List<YamlSection> out = new ArrayList<>();
        for (int i = 0; i < seq.getValue().size(); i++) {
            out.add(new YamlSection(pathOf(key) + "[" + i + "]", seq.getValue().get(i), report));
        }
        return out;
    }

    /** A mapping of scalar texts, as Go's {@code map[string]string}; absent or null is empty. */
    Map<String, String> stringMap(String key) {
        YamlSection inner = section(key);
        Map<String, String> out = new LinkedHashMap<>();
        for (String k : inner.keys()) {
            inner.text(k).ifPresent(v -> out.put(k, v));
        }
        return out;
    }

    private Node take(String key) {
        read.add(key);
        return entries.get(key);
    }

    private String pathOf(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /** The constructed scalar if the node's resolved tag is one of {@code tags}, else {@code null}. */
    private Object constructed(Node node, Tag... tags) {
        if (node instanceof ScalarNode scalar) {
            for (Tag tag : tags) {
                if (scalar.getTag().equals(tag)) {
                    return report.values.scalar(scalar);
                }
            }
        }
        return null;
    }

    private int outOfRange(String key, Node node, int dflt) {
        report.error(pathOf(key) + ": " + ((ScalarNode) node).getValue() + " is out of range for int");
        return dflt;
    }

    private void typeError(String key, Node node, String type) {
        report.error(pathOf(key) + ": " + cannotUnmarshal(node, type));
    }

    /** yaml.v2's wording: {@code cannot unmarshal !!str `Kaboom!` into int}. */
    private static String cannotUnmarshal(Node node, String type) {
        String tag = shortTag(node.getTag());
        return node instanceof ScalarNode scalar
                ? "cannot unmarshal " + tag + " `" + scalar.getValue() + "` into " + type
                : "cannot unmarshal " + tag + " into " + type;
    }

    private static String shortTag(Tag tag) {
        String value = tag.getValue();
        return value.startsWith(Tag.PREFIX) ? "!!" + value.substring(Tag.PREFIX.length()) : value;
    }

    private static boolean isNull(Node node) {
        return node instanceof ScalarNode && node.getTag().equals(Tag.NULL);
    }
}
