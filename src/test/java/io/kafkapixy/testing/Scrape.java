package io.kafkapixy.testing;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One scrape of a Prometheus text exposition, as a test reads it: every sample by name and labels (Helidon's
 * {@code scope} label left out). A sample that is absent reads as 0, like a counter that has not moved yet.
 */
public final class Scrape {

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*?),?\\})? (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final Map<String, Map<Map<String, String>, Double>> samples = new HashMap<>();

    private Scrape() {
    }

    /** Parses the text; a line that is neither a comment nor a well-formed sample fails the parse. */
    public static Scrape parse(String text) {
        Scrape s = new Scrape();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches()) {
                throw new IllegalArgumentException("not a Prometheus sample: " + line);
            }
            Map<String, String> labels = new TreeMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            labels.remove("scope");
            s.samples.computeIfAbsent(m.group(1), k -> new HashMap<>()).put(labels, Double.parseDouble(m.group(4)));
        }
        return s;
    }

    /** The sample with exactly these labels ({@code "k1", "v1", "k2", "v2"...}), 0 when absent. */
    public double value(String name, String... labels) {
        Map<String, String> want = new TreeMap<>();
        for (int i = 0; i < labels.length; i += 2) {
            want.put(labels[i], labels[i + 1]);
        }
        return samples.getOrDefault(name, Map.of()).getOrDefault(want, 0.0);
    }

    /** Whether a sample of this name with exactly these labels is exposed at all. */
    public boolean has(String name, String... labels) {
        Map<String, String> want = new TreeMap<>();
        for (int i = 0; i < labels.length; i += 2) {
            want.put(labels[i], labels[i + 1]);
        }
        return samples.getOrDefault(name, Map.of()).containsKey(want);
    }

    /** The sum of every sample of this name, whatever its labels; 0 when none is exposed. */
    public double sum(String name) {
        return samples.getOrDefault(name, Map.of()).values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** Whether any sample of this name is exposed. */
    public boolean has(String name) {
        return samples.containsKey(name);
    }
}
