package io.kafkapixy.config;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which {@code kafka.version} strings a config may declare: every string the original accepts and,
 * because kafka-clients negotiates the protocol with the broker anyway, any dotted version newer than the newest of
 * those (e.g. {@code 2.8.0}, {@code 3.7.0}, {@code 4.0.0}).
 */
final class KafkaVersions {

    /** The original's accepted strings, in its order. */
    static final Set<String> ORIGINAL = Set.of(
            "0.8.2.2", "0.9.0.0", "0.9.0.1", "0.10.0.0", "0.10.0.1", "0.10.1.0", "0.10.2.0", "0.10.2.1", "0.10.2.2",
            "0.11.0.0", "0.11.0.1", "0.11.0.2", "0.11.0.3", "1.0.0", "1.0.1", "1.0.2", "1.1.0", "1.1.1", "2.0.0",
            "2.0.1", "2.1.0", "2.1.1", "2.2.0", "2.2.1", "2.3.0");

    private static final int[] NEWEST_ORIGINAL = {2, 3, 0};

    private static final Pattern DOTTED = Pattern.compile("\\d{1,6}(\\.\\d{1,6}){1,3}");

    private KafkaVersions() {
    }

    /** {@code kafka.version}: read as text, and one that is not accepted reported as the original reports it. */
    static final ConfigKey.Type<String> TYPE = new ConfigKey.Type<>((section, key, dflt) -> {
        String version = section.text(key).orElse(dflt);
        if (!isAccepted(version)) {
            section.error("bad kafka version, " + version);
        }
        return version;
    }, v -> v);

    static boolean isAccepted(String version) {
        return ORIGINAL.contains(version) || (DOTTED.matcher(version).matches() && isNewerThanOriginal(version));
    }

    private static boolean isNewerThanOriginal(String version) {
        String[] parts = version.split("\\.");
        for (int i = 0; i < Math.max(parts.length, NEWEST_ORIGINAL.length); i++) {
            int mine = i < parts.length ? Integer.parseInt(parts[i]) : 0;
            int theirs = i < NEWEST_ORIGINAL.length ? NEWEST_ORIGINAL[i] : 0;
            if (mine != theirs) {
                return mine > theirs;
            }
        }
        return false;
    }
}
