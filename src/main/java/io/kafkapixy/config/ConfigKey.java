package io.kafkapixy.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One configuration key, defined once: its place in the YAML ({@code limits.max_groups}), how its value is read and
 * written, its default, the bound a value must meet, the original's command-line flag if it has one, and what it
 * does. Parsing ({@link ConfigLoader}), validation ({@link Validation}), the startup summary ({@link ConfigSummary})
 * and the README's configuration table (a test compares them) come from the key tables of the sections.
 *
 * @param path    the key's place in the YAML, {@code proxies.<name>.} for a cluster's keys
 * @param type    how a value is read from YAML and written for people
 * @param dflt    the value when the key is left out
 * @param bound   what a value must meet, as the error says it ({@code must be > 0})
 * @param flag    the original's command-line flag for it ({@code -tcpAddr}), or empty
 * @param meaning one line for the README's configuration table
 */
public record ConfigKey<T>(String path, Type<T> type, T dflt, Bound<T> bound, String flag, String meaning) {

    /** A key without a command-line flag. */
    static <T> ConfigKey<T> of(String path, Type<T> type, T dflt, Bound<T> bound, String meaning) {
        return new ConfigKey<>(path, type, dflt, bound, "", meaning);
    }

    /** The key's own name, the last part of its path. */
    public String name() {
        return path.substring(path.lastIndexOf('.') + 1);
    }

    /** This key's value in {@code section}, its default when the section leaves it out. */
    T read(YamlSection section) {
        return type.reader().read(section, name(), dflt);
    }

    /** The bound's violation for {@code value}, as {@code <path without proxies.<name>.> <rule>}, or null. */
    String violation(T value) {
        if (bound.ok().test(value)) {
            return null;
        }
        String where = !bound.reportedAs().isEmpty() ? bound.reportedAs()
                : path.startsWith(CLUSTER) ? path.substring(CLUSTER.length()) : path;
        return where + " " + bound.rule();
    }

    static final String CLUSTER = "proxies.<name>.";

    /** How a key's value is read from a YAML section and written for people (summary, README). */
    public record Type<T>(Reader<T> reader, Function<T, String> show) {

        static final Type<Integer> INT = new Type<>(YamlSection::integer, String::valueOf);
        static final Type<Boolean> BOOL = new Type<>(YamlSection::bool, String::valueOf);
        static final Type<String> STRING = new Type<>(YamlSection::string, s -> s);
        static final Type<Duration> DURATION = new Type<>(YamlSection::duration, Durations::format);
        static final Type<List<String>> STRINGS = new Type<>(YamlSection::strings, String::valueOf);

        /**
         * One of an enum's constants, written in lower case; a value that is none of them leaves the default (the
         * section that reads it reports the error in the original's words).
         */
        static <E extends Enum<E>> Type<E> choice(Class<E> type) {
            return choice(type, (section, text) -> { });
        }

        /** The same, a value that is none of them reported by {@code onBad} as it is read. */
        static <E extends Enum<E>> Type<E> choice(Class<E> type, BiConsumer<YamlSection, String> onBad) {
            return new Type<>((section, key, dflt) -> section.text(key).map(v -> {
                Optional<E> match = constantNamed(type, v);
                if (match.isEmpty()) {
                    onBad.accept(section, v);
                }
                return match.orElse(dflt);
            }).orElse(dflt), e -> e.name().toLowerCase(Locale.ROOT));
        }

        /** The constant whose lower-case name is exactly {@code text}, as the original's config names them. */
        static <E extends Enum<E>> Optional<E> constantNamed(Class<E> type, String text) {
            return Arrays.stream(type.getEnumConstants())
                    .filter(e -> e.name().toLowerCase(Locale.ROOT).equals(text)).findFirst();
        }
    }

    /** Reads a key of a YAML section, its default when absent; a value of the wrong type is reported there. */
    @FunctionalInterface
    public interface Reader<T> {
        T read(YamlSection section, String key, T dflt);
    }

    /**
     * What a value must meet, and how a violation reads: {@code <key> <rule>}, the key named {@code reportedAs} when
     * the original's text names it otherwise.
     */
    public record Bound<T>(Predicate<T> ok, String rule, String reportedAs) {

        static <T> Bound<T> none() {
            return new Bound<>(v -> true, "", "");
        }

        static Bound<Integer> atLeast(int min) {
            return new Bound<>(v -> v >= min, min == 1 ? "must be > 0" : "must be >= " + min, "");
        }

        static Bound<Duration> atLeast(Duration min) {
            return new Bound<>(d -> d.compareTo(min) >= 0, "must be >= " + Durations.format(min), "");
        }

        /** Between {@code min} and {@code max}, both included, the rule reading as {@code rule}. */
        static Bound<Duration> between(Duration min, Duration max, String rule) {
            return new Bound<>(d -> d.compareTo(min) >= 0 && d.compareTo(max) <= 0, rule, "");
        }

        static Bound<Duration> positive() {
            return new Bound<>(d -> !d.isNegative() && !d.isZero(), "must be > 0", "");
        }

        static Bound<Duration> notNegative() {
            return new Bound<>(d -> !d.isNegative(), "must be >= 0", "");
        }

        /** The same bound, its violation naming {@code key} as the original's text does. */
        Bound<T> reportedAs(String key) {
            return new Bound<>(ok, rule, key);
        }
    }
}
