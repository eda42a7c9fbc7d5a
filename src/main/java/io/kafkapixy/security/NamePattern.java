package io.kafkapixy.security;

/**
 * A topic or group name in a clients file: the name itself, {@code prefix*} (every name that starts with the prefix)
 * or {@code *} (every name). A star anywhere but at the end is refused when the file is read.
 */
record NamePattern(String text) {

    NamePattern {
        if (text.isEmpty()) {
            throw new IllegalArgumentException("an empty name");
        }
        int star = text.indexOf('*');
        if (star >= 0 && star != text.length() - 1) {
            throw new IllegalArgumentException(text + ": a star only at the end (prefix*) or alone (*)");
        }
    }

    boolean matches(String name) {
        int prefix = text.length() - 1;
        return text.charAt(prefix) == '*' ? name.regionMatches(0, text, 0, prefix) : text.equals(name);
    }
}
