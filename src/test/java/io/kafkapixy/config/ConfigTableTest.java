package io.kafkapixy.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The README's configuration table is the key tables', row for row: each key of a section defined in code
 * ({@link ConfigKey}) appears in the README as {@code | `path` | `default` | meaning |}, in the section's order, and
 * the README has no other row of that section. On a mismatch the message shows the rows to paste.
 */
class ConfigTableTest {

    /** The sections whose keys are defined in key tables. */
    private static final List<List<ConfigKey<?>>> SECTIONS = List.of(PixyConfig.KEYS, KafkaConfig.KEYS, NetConfig.KEYS,
            SaslConfig.KEYS, ZooKeeperConfig.KEYS, ProducerConfig.KEYS, ConsumerConfig.KEYS, ServerTlsConfig.KEYS,
            AuthConfig.KEYS, LimitsConfig.KEYS);

    @Test
    void theReadmesRowsAreTheKeyTables() throws IOException {
        List<String> readme = Files.readAllLines(Path.of("README.md"));
        for (List<ConfigKey<?>> keys : SECTIONS) {
            // a table may span nested sections (auth. and auth.jwt.)
            java.util.Set<String> sections = keys.stream()
                    .map(k -> k.path().substring(0, k.path().lastIndexOf('.') + 1)).collect(java.util.stream.Collectors
                            .toCollection(java.util.LinkedHashSet::new));
            List<String> expected = keys.stream().map(ConfigTableTest::row).toList();
            List<String> actual = readme.stream().filter(l -> sections.contains(sectionOf(l))).toList();

            assertEquals(String.join("\n", expected), String.join("\n", actual),
                    "the README's rows of " + sections + " (expected: the key table's)");
        }
    }

    @Test
    void everyKeyOfATableHasAMeaningAndItsDefaultMeetsItsBound() {
        for (List<ConfigKey<?>> keys : SECTIONS) {
            for (ConfigKey<?> key : keys) {
                assertEquals(false, key.meaning().isBlank(), key.path());
                assertEquals(null, violationOfDefault(key), key.path());
            }
        }
    }

    private static <T> String violationOfDefault(ConfigKey<T> key) {
        return key.violation(key.dflt());
    }

    /**
     * The section ({@code proxies.<name>.net.}, {@code ""} for the top level) of a table row's key, or null when the
     * line is no such row (a flag's row, {@code -embeddedKafka}, is none).
     */
    private static String sectionOf(String line) {
        if (!line.startsWith("| `")) {
            return null;
        }
        String path = line.substring(3, line.indexOf('`', 3));
        return path.startsWith("-") ? null : path.substring(0, path.lastIndexOf('.') + 1);
    }

    /** {@code | `path` [/ `-flag`] | `default` or none | meaning |}. */
    private static <T> String row(ConfigKey<T> key) {
        String dflt = key.type().show().apply(key.dflt());
        return "| `" + key.path() + "`" + (key.flag().isEmpty() ? "" : " / `" + key.flag() + "`") + " | "
               + (dflt.isEmpty() ? "none" : "`" + dflt + "`") + " | " + key.meaning() + " |";
    }
}
