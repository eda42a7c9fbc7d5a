package io.kafkapixy.zookeeper;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.TreeSet;

import jakarta.json.Json;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParser;
import jakarta.json.stream.JsonParserFactory;

/**
 * The data of a member node {@code /consumers/<group>/ids/<member>}, written exactly as the original's
 * {@code json.Marshal} of its {@code memberSpec} struct, for example
 * {@code {"subscription":{"topicA":1,"topicB":1},"pattern":"static","timestamp":1690000000,"version":1}}.
 *
 * <p>Byte-exactness is not needed for correctness (readers parse the JSON and compare topic lists), but it keeps
 * nodes written by either kind of instance indistinguishable for operators and for tests comparing bytes.
 */
final class MemberSpec {

    private static final JsonParserFactory PARSERS = Json.createParserFactory(Map.of());
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private MemberSpec() {
    }

    /**
     * The member node JSON for a subscription to {@code topics}: fields in the struct's order
     * {@code subscription, pattern, timestamp, version}; subscription keys sorted byte-wise ({@link Utf8Order}, as Go
     * sorts map keys) and de-duplicated, each mapped to {@code 1}; {@code pattern} always {@code static};
     * {@code timestamp} Unix seconds as a JSON number; {@code version} {@code 1}; no whitespace. Strings are escaped
     * as Go's {@code encoding/json} does, see {@link #appendGoString}. No topics give {@code "subscription":{}} (the
     * original deletes its node instead of writing that, but Go would encode it so).
     *
     * @param topics      the subscribed topics, any order, duplicates allowed
     * @param unixSeconds the registration time in seconds since the Unix epoch ({@code time.Now().Unix()})
     * @return the UTF-8 bytes to store in the node
     * @throws NullPointerException if {@code topics} or a topic is null
     */
    static byte[] encode(Collection<String> topics, long unixSeconds) {
        TreeSet<String> sorted = new TreeSet<>(Utf8Order.COMPARATOR);
        for (String topic : topics) {
            sorted.add(Objects.requireNonNull(topic, "topic"));
        }
        StringBuilder json = new StringBuilder(64 + 16 * sorted.size()).append("{\"subscription\":{");
        boolean first = true;
        for (String topic : sorted) {
            if (!first) {
                json.append(',');
            }
            first = false;
            appendGoString(json, topic);
            json.append(":1");
        }
        json.append("},\"pattern\":\"static\",\"timestamp\":").append(unixSeconds).append(",\"version\":1}");
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The subscribed topics of a member node's JSON (only the {@code subscription} keys are used), sorted byte-wise and
     * unique, as the original's {@code memberSpec.topics()} returns them.
     *
     * <p>Tolerates whitespace and any other fields, whatever their values. A missing or {@code null}
     * {@code subscription}, and a top-level {@code null}, give no topics, as they leave Go's map nil. Invalid UTF-8 is
     * read as U+FFFD, as Go does.
     *
     * <p>Deliberately more lenient than the original, whose typed struct also makes it fail on a non-integer
     * subscription value or {@code timestamp} (e.g. the old Java ZooKeeper consumer's millisecond string) and which
     * also accepts the field name in another letter case: here subscription values and other fields are never looked
     * at, and only the exact key {@code subscription} counts.
     *
     * @throws IllegalArgumentException if {@code json} is not a single JSON value, is not an object (or
     *                                  {@code null}), or has a {@code subscription} that is not an object (or
     *                                  {@code null}); the message quotes the data, like the original's
     *                                  {@code while parsing member ..., data=...}
     */
    static List<String> decodeSubscription(byte[] json) {
        // Decoding to a String first fixes the charset to UTF-8 (a byte stream would let the parser guess UTF-16/32)
        // and turns malformed bytes into U+FFFD.
        String text = new String(json, StandardCharsets.UTF_8);
        JsonValue root;
        // A parser rather than a JsonReader: the reader ignores anything after the first value, which Go rejects.
        try (JsonParser parser = PARSERS.createParser(new StringReader(text))) {
            if (!parser.hasNext()) {
                throw malformed("no JSON value", text, null);
            }
            parser.next();
            root = parser.getValue();
            if (parser.hasNext()) {
                throw malformed("data after the JSON value", text, null);
            }
        } catch (JsonException | IllegalStateException | NoSuchElementException e) {
            throw malformed("not a single JSON value (" + e.getMessage() + ")", text, e);
        }
        if (root.getValueType() == JsonValue.ValueType.NULL) {
            return List.of();
        }
        if (root.getValueType() != JsonValue.ValueType.OBJECT) {
            throw malformed("not a JSON object", text, null);
        }
        JsonValue subscription = ((JsonObject) root).get("subscription");
        if (subscription == null || subscription.getValueType() == JsonValue.ValueType.NULL) {
            return List.of();
        }
        if (subscription.getValueType() != JsonValue.ValueType.OBJECT) {
            throw malformed("subscription is not a JSON object", text, null);
        }
        TreeSet<String> topics = new TreeSet<>(Utf8Order.COMPARATOR);
        topics.addAll(((JsonObject) subscription).keySet());
        return List.copyOf(topics);
    }

    private static IllegalArgumentException malformed(String what, String text, Exception cause) {
        return new IllegalArgumentException("malformed member spec: " + what + ", data=" + text, cause);
    }

    /**
     * Appends {@code s} as a quoted JSON string the way Go's {@code encoding/json} (HTML escaping on, as
     * {@code json.Marshal}) writes it: {@code "} and {@code \} backslash-escaped; {@code \n}, {@code \r},
     * {@code \t} as such; other control characters below U+0020 and {@code <}, {@code >}, {@code &} as
     * <code>&#92;u00XX</code> with lower-case hex; U+2028 and U+2029 as <code>&#92;u2028</code>,
     * <code>&#92;u2029</code>; everything else (DEL and all non-ASCII included) literally. Go 1.22 started writing
     * {@code \b} and {@code \f} as such; the original was built with an older Go (1.11-1.13), so they are
     * <code>&#92;u0008</code> and <code>&#92;u000c</code> here. A lone surrogate, which has no UTF-8 form, becomes
     * <code>&#92;ufffd</code> like Go's invalid UTF-8.
     */
    static void appendGoString(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"', '\\' -> out.append('\\').append(c);
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '<', '>', '&', '\u2028', '\u2029' -> appendUnicodeEscape(out, c);
                default -> {
                    if (c < 0x20) {
                        appendUnicodeEscape(out, c);
                    } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                            && Character.isLowSurrogate(s.charAt(i + 1))) {
                        out.append(c).append(s.charAt(++i));
                    } else if (Character.isSurrogate(c)) {
                        out.append("\\ufffd");
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static void appendUnicodeEscape(StringBuilder out, char c) {
        out.append("\\u").append(HEX[c >> 12 & 0xF]).append(HEX[c >> 8 & 0xF]).append(HEX[c >> 4 & 0xF])
                .append(HEX[c & 0xF]);
    }
}
