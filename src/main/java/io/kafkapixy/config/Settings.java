package io.kafkapixy.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** The values of one section's keys, in the section's order; immutable, every key set (to its default at first). */
final class Settings {

    private final Map<ConfigKey<?>, Object> values;

    private Settings(Map<ConfigKey<?>, Object> values) {
        this.values = values;
    }

    /** Every key at its default. */
    static Settings defaults(List<ConfigKey<?>> keys) {
        Map<ConfigKey<?>, Object> values = new LinkedHashMap<>();
        keys.forEach(k -> values.put(k, k.dflt()));
        return new Settings(values);
    }

    @SuppressWarnings("unchecked")
    <T> T get(ConfigKey<T> key) {
        if (!values.containsKey(key)) {
            throw new IllegalArgumentException("not a key of this section: " + key.path());
        }
        return (T) values.get(key);
    }

    /** The same with {@code key} set to {@code value}. */
    <T> Settings with(ConfigKey<T> key, T value) {
        get(key);
        Map<ConfigKey<?>, Object> changed = new LinkedHashMap<>(values);
        changed.put(key, Objects.requireNonNull(value, key.path()));
        return new Settings(changed);
    }

    /** Every key's value read from {@code section} (its default where the section leaves it out). */
    Settings read(YamlSection section) {
        Settings s = this;
        for (ConfigKey<?> key : values.keySet()) {
            s = readInto(s, key, section);
        }
        return s;
    }

    private static <T> Settings readInto(Settings s, ConfigKey<T> key, YamlSection section) {
        return s.with(key, key.type().reader().read(section, key.name(), s.get(key)));
    }

    /** The violations of the keys' bounds, in the section's order. */
    List<String> violations() {
        return values.keySet().stream().map(this::violation).filter(Objects::nonNull).toList();
    }

    private <T> String violation(ConfigKey<T> key) {
        return key.violation(get(key));
    }

    /** Each key's name and value, in the section's order, for the startup summary. */
    Map<String, Object> byName() {
        Map<String, Object> out = new LinkedHashMap<>();
        values.forEach((k, v) -> out.put(k.name(), v));
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Settings s && values.equals(s.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return byName().toString();
    }
}
