package io.kafkapixy.zookeeper;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The member node JSON, byte for byte as Go's {@code encoding/json} writes it. */
class MemberSpecTest {

    private static String encode(List<String> topics, long unixSeconds) {
        return new String(MemberSpec.encode(topics, unixSeconds), StandardCharsets.UTF_8);
    }

    private static List<String> decode(String json) {
        return MemberSpec.decodeSubscription(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void encodesTheReferenceExampleExactly() {
        assertThat(encode(List.of("topicB", "topicA"), 1690000000L),
                is("{\"subscription\":{\"topicA\":1,\"topicB\":1},\"pattern\":\"static\",\"timestamp\":1690000000,"
                        + "\"version\":1}"));
    }

    @Test
    void encodesAnEmptySubscriptionAsAnEmptyObject() {
        assertThat(encode(List.of(), 0),
                is("{\"subscription\":{},\"pattern\":\"static\",\"timestamp\":0,\"version\":1}"));
    }

    @Test
    void encodesOneKeyPerTopicAndAnyInt64Timestamp() {
        assertThat(encode(List.of("t", "t"), -1),
                is("{\"subscription\":{\"t\":1},\"pattern\":\"static\",\"timestamp\":-1,\"version\":1}"));
        assertThat(encode(List.of("t"), Long.MAX_VALUE),
                is("{\"subscription\":{\"t\":1},\"pattern\":\"static\",\"timestamp\":9223372036854775807,"
                        + "\"version\":1}"));
    }

    @Test
    void rejectsANullTopic() {
        assertThrows(NullPointerException.class, () -> MemberSpec.encode(java.util.Arrays.asList("a", null), 1));
    }

    /** Go sorts map keys by their bytes: upper case first, and U+FF61 before a supplementary character. */
    @Test
    void sortsSubscriptionKeysByUtf8Bytes() {
        assertThat(encode(List.of("\uD83D\uDE00", "a", "\uFF61", "Z", "a.b", "a-b", "a_b"), 1),
                is("{\"subscription\":{\"Z\":1,\"a\":1,\"a-b\":1,\"a.b\":1,\"a_b\":1,\"\uFF61\":1,\"\uD83D\uDE00\":1},"
                        + "\"pattern\":\"static\",\"timestamp\":1,\"version\":1}"));
    }

    @Test
    void escapesStringsLikeGo() {
        assertThat(goString("a<b>&c\"d\\e"), is("\"a\\u003cb\\u003e\\u0026c\\\"d\\\\e\""));
        assertThat(goString("\n\r\t"), is("\"\\n\\r\\t\""));
        // Go before 1.22 (the original's) has no \b or \f short forms; other controls are \\u00XX, lower-case hex.
        assertThat(goString("\b\f\0\1\037\u001a"), is("\"\\u0008\\u000c\\u0000\\u0001\\u001f\\u001a\""));
        assertThat(goString("\u2028x\u2029"), is("\"\\u2028x\\u2029\""));
        // DEL, printable ASCII, other non-ASCII and supplementary characters are written as they are.
        assertThat(goString("\u007f ~/'\u00e9\u0085\u2027\u202a\ufeff\uD83D\uDE00"),
                is("\"\u007f ~/'\u00e9\u0085\u2027\u202a\ufeff\uD83D\uDE00\""));
        // A lone surrogate has no UTF-8 form: U+FFFD, as Go writes invalid UTF-8.
        assertThat(goString("a\uD800b\uDC00"), is("\"a\\ufffdb\\ufffd\""));
        assertThat(goString("\uDC00\uD800"), is("\"\\ufffd\\ufffd\""));
    }

    @Test
    void encodesEscapedKeysAsUtf8() {
        byte[] json = MemberSpec.encode(List.of("<\u00e9"), 5);
        byte[] expected = ("{\"subscription\":{\"\\u003c\u00e9\":1},\"pattern\":\"static\",\"timestamp\":5,"
                + "\"version\":1}").getBytes(StandardCharsets.UTF_8);
        assertThat(json, is(expected));
        // é is the two raw bytes C3 A9, as Go keeps valid UTF-8 unescaped.
        assertThat(json[24] & 0xff, is(0xc3));
        assertThat(json[25] & 0xff, is(0xa9));
    }

    private static String goString(String s) {
        StringBuilder out = new StringBuilder();
        MemberSpec.appendGoString(out, s);
        return out.toString();
    }

    @Test
    void decodesGoOutput() {
        assertThat(decode("{\"subscription\":{\"topicA\":1,\"topicB\":1},\"pattern\":\"static\","
                + "\"timestamp\":1690000000,\"version\":1}"), contains("topicA", "topicB"));
    }

    @Test
    void roundTripsEveryEscape() {
        List<String> topics = List.of("a<b>&c\"d\\e", "\n\r\t\b\f\0\1\037", "\u2028\u2029\u007f\u00e9",
                "\uD83D\uDE00", "\uFF61", "plain.topic-1_x");
        List<String> decoded = MemberSpec.decodeSubscription(MemberSpec.encode(topics, 1));
        assertThat(Set.copyOf(decoded), is(Set.copyOf(topics)));
        assertThat(decoded.size(), is(topics.size()));
    }

    @Test
    void decodesInByteWiseOrderWithoutDuplicates() {
        List<String> topics = decode("{\"subscription\":{\"\uD83D\uDE00\":1,\"b\":1,\"\uFF61\":1,\"a\":1,\"B\":1}}");
        assertThat(topics, contains("B", "a", "b", "\uFF61", "\uD83D\uDE00"));
        assertThrows(UnsupportedOperationException.class, () -> topics.add("c"));
        // A duplicated key (which Go never writes) is one topic.
        assertThat(decode("{\"subscription\":{\"a\":1,\"a\":1}}"), contains("a"));
    }

    @Test
    void toleratesWhitespaceExtraFieldsAndAnyValues() {
        assertThat(decode(" \n{ \"version\" : 1,\r\n\t\"subscription\" : { \"t2\" : 1 , \"t1\" : 1 } ,"
                + " \"pattern\":\"static\", \"timestamp\":1690000000, \"extra\":{\"nested\":[1,2,{\"x\":null}]} }\n"),
                contains("t1", "t2"));
        // The old Java ZooKeeper consumer's format: millisecond timestamp as a string, fields in another order.
        assertThat(decode("{\"version\":1,\"subscription\":{\"orders\":1},\"pattern\":\"static\","
                + "\"timestamp\":\"1690000000000\"}"), contains("orders"));
        // Values are ignored (counts of streams in the old consumer).
        assertThat(decode("{\"subscription\":{\"a\":4,\"b\":\"x\",\"c\":null,\"d\":[],\"e\":1.5}}"),
                contains("a", "b", "c", "d", "e"));
        // Escaped keys decode to their characters.
        assertThat(decode("{\"subscription\":{\"a\\u003cb\":1,\"\\ud83d\\ude00\":1,\"c\\/d\":1}}"),
                contains("a<b", "c/d", "\uD83D\uDE00"));
    }

    @Test
    void missingOrNullSubscriptionIsNoTopics() {
        assertThat(decode("{}"), is(empty()));
        assertThat(decode("{\"subscription\":{}}"), is(empty()));
        assertThat(decode("{\"subscription\":null,\"pattern\":\"static\"}"), is(empty()));
        assertThat(decode("null"), is(empty()));
        assertThat(decode("{\"pattern\":\"static\",\"timestamp\":1,\"version\":1}"), is(empty()));
    }

    @Test
    void invalidUtf8DecodesAsReplacementCharacter() {
        byte[] json = {'{', '"', 's', 'u', 'b', 's', 'c', 'r', 'i', 'p', 't', 'i', 'o', 'n', '"', ':', '{', '"', 'a',
                (byte) 0xff, '"', ':', '1', '}', '}'};
        assertThat(MemberSpec.decodeSubscription(json), contains("a\uFFFD"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {
            "",
            "   ",
            "{",
            "{\"subscription\":{\"a\":1}",
            "{\"subscription\":{\"a\"}}",
            "{subscription:{}}",
            "{\"subscription\":{'a':1}}",
            "[{\"subscription\":{}}]",
            "\"static\"",
            "1",
            "{\"subscription\":[\"a\"]}",
            "{\"subscription\":\"a\"}",
            "{\"subscription\":1}",
            "{} {}",
            "{}x",
            "\ufeff{}",
    })
    void rejectsMalformedJsonClearly(String json) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> decode(json));
        assertThat(e.getMessage(), containsString("malformed member spec: "));
        assertThat(e.getMessage(), containsString(", data=" + json));
    }
}
