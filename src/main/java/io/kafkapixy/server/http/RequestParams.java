package io.kafkapixy.server.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Request parameters as Go's {@code r.ParseForm()} sees them: values from a form-encoded body first, then from the
 * query string, each parsed like Go's {@code url.ParseQuery}. Values are raw bytes, because the original hashes and
 * stores the bytes a client sent (a {@code key=%E9} is the single byte 0xE9, not U+FFFD). Flags are
 * presence-only: {@code ?sync=false} still means sync.
 */
final class RequestParams {

    private final Map<String, List<byte[]>> values;

    private RequestParams(Map<String, List<byte[]>> values) {
        this.values = values;
    }

    /** Parameters of the raw (still percent-encoded) query string. */
    static RequestParams ofQuery(String rawQuery) {
        Map<String, List<byte[]>> values = new LinkedHashMap<>();
        parse(rawQuery.getBytes(StandardCharsets.UTF_8), values);
        return new RequestParams(values);
    }

    /** Parameters of a raw {@code application/x-www-form-urlencoded} body, then of the query string. */
    static RequestParams ofForm(byte[] formBody, String rawQuery) {
        Map<String, List<byte[]>> values = new LinkedHashMap<>();
        parse(formBody, values);
        parse(rawQuery.getBytes(StandardCharsets.UTF_8), values);
        return new RequestParams(values);
    }

    boolean has(String name) {
        return values.containsKey(name);
    }

    /** Every value of {@code name}, as UTF-8 text. */
    List<String> all(String name) {
        List<String> texts = new ArrayList<>();
        for (byte[] v : values.getOrDefault(name, List.of())) {
            texts.add(new String(v, StandardCharsets.UTF_8));
        }
        return texts;
    }

    /** Every value of {@code name}, as sent. */
    List<byte[]> allBytes(String name) {
        return values.getOrDefault(name, List.of());
    }

    /** The first value's bytes, or empty when absent (Go's {@code FormValue}). */
    byte[] firstBytes(String name) {
        List<byte[]> v = values.get(name);
        return v == null ? new byte[0] : v.getFirst();
    }

    /** The first value as UTF-8 text, or "" when absent. */
    String first(String name) {
        return new String(firstBytes(name), StandardCharsets.UTF_8);
    }

    /**
     * Go's {@code parseQuery}: pairs split on {@code &}; a pair containing {@code ;} or a bad {@code %} escape is
     * dropped; {@code +} is a space; a pair without {@code =} has an empty value.
     */
    private static void parse(byte[] raw, Map<String, List<byte[]>> into) {
        int start = 0;
        while (start <= raw.length) {
            int end = start;
            while (end < raw.length && raw[end] != '&') {
                end++;
            }
            addPair(raw, start, end, into);
            start = end + 1;
        }
    }

    private static void addPair(byte[] raw, int from, int to, Map<String, List<byte[]>> into) {
        if (from >= to) {
            return;
        }
        int eq = -1;
        for (int i = from; i < to; i++) {
            if (raw[i] == ';') {
                return;
            }
            if (raw[i] == '=' && eq < 0) {
                eq = i;
            }
        }
        byte[] key = unescape(raw, from, eq < 0 ? to : eq);
        byte[] value = eq < 0 ? new byte[0] : unescape(raw, eq + 1, to);
        if (key == null || value == null) {
            return;
        }
        into.computeIfAbsent(new String(key, StandardCharsets.UTF_8), k -> new ArrayList<>()).add(value);
    }

    /** Query-component unescaping; null for a malformed {@code %} escape. */
    private static byte[] unescape(byte[] raw, int from, int to) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(to - from);
        for (int i = from; i < to; i++) {
            byte b = raw[i];
            if (b == '%') {
                if (i + 2 >= to) {
                    return null;
                }
                int hi = Character.digit(raw[i + 1], 16);
                int lo = Character.digit(raw[i + 2], 16);
                if (hi < 0 || lo < 0) {
                    return null;
                }
                out.write(hi << 4 | lo);
                i += 2;
            } else if (b == '+') {
                out.write(' ');
            } else {
                out.write(b);
            }
        }
        return out.toByteArray();
    }
}
