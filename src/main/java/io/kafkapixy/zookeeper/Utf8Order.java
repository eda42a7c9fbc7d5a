package io.kafkapixy.zookeeper;

import java.util.Comparator;

/**
 * The order of Go's {@code sort.Strings} and of the map-key sort in Go's {@code encoding/json}: byte-wise over the
 * UTF-8 encoding, bytes unsigned. The original sorts member ids this way for the range assignment, and Go writes the
 * subscription keys of member JSON in this order; Go and Java members of one group must agree on both.
 *
 * <p>Java's {@link String#compareTo} orders UTF-16 code units, which differs from UTF-8 byte order when a
 * supplementary character (surrogate pair, UTF-16 {@code D800-DFFF}) meets a character in {@code U+E000-U+FFFF}.
 * For well-formed strings UTF-8 byte order equals code point order, so this compares code points and never encodes.
 * A lone surrogate (which no ZooKeeper child name or Kafka metadata can produce) sorts by its own value, as in
 * WTF-8; the order stays total and consistent.
 */
final class Utf8Order {

    /** Byte-wise UTF-8 order; consistent with {@link String#equals}. */
    static final Comparator<String> COMPARATOR = Utf8Order::compare;

    private Utf8Order() {
    }

    /** Negative, zero or positive as {@code a} sorts before, equal to or after {@code b} in UTF-8 byte order. */
    static int compare(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        // Equal so far: the shorter (a prefix of the other) sorts first.
        return Boolean.compare(i < a.length(), j < b.length());
    }
}
