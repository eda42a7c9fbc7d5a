package io.kafkapixy.offset;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The sparse-acks codec stored as Kafka offset-commit metadata, bit-exact with the original because Go and Java
 * instances read each other's commits.
 *
 * <p>Every range is written as two numbers: its gap from the previous boundary (the committed offset for the first
 * range, the previous range's {@code to} after that) and its length. A number is a little-endian base-32 varint
 * spelled with the standard base64 alphabet: a character's index is the 5-bit group, plus {@code 0x20} when more
 * groups follow. All arithmetic is two's-complement wrapping, as Go's {@code int64} is, so foreign or hostile
 * metadata decodes to the same ranges (or the same error) in both implementations.
 */
public final class SparseAcks {

    static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    /** Characters a number may use at most: {@code 64/5 + 1}, enough for any 64-bit value. */
    static final int MAX_INT_CHARS = 64 / 5 + 1;

    private static final int CONTINUATION = 0x20;
    private static final int GROUP_MASK = 0x1F;
    private static final byte INVALID = (byte) 0xFF;
    private static final byte[] DECODE = new byte[256];

    static {
        Arrays.fill(DECODE, INVALID);
        for (int i = 0; i < ALPHABET.length(); i++) {
            DECODE[ALPHABET.charAt(i)] = (byte) i;
        }
    }

    private SparseAcks() {
    }

    /** Encodes {@code ranges} (ascending) relative to the committed offset {@code base}; no ranges → {@code ""}. */
    public static String encode(long base, List<AckRange> ranges) {
        if (ranges.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder(ranges.size() * 4);
        for (AckRange r : ranges) {
            appendInt(out, r.from() - base);
            appendInt(out, r.to() - r.from());
            base = r.to();
        }
        return out.toString();
    }

    /** {@link #encode(long, List)} over {@code count} ranges stored flat as {@code from, to} pairs. */
    static String encode(long base, long[] pairs, int count) {
        if (count == 0) {
            return "";
        }
        StringBuilder out = new StringBuilder(count * 4);
        for (int i = 0; i < count; i++) {
            long from = pairs[2 * i];
            long to = pairs[2 * i + 1];
            appendInt(out, from - base);
            appendInt(out, to - from);
            base = to;
        }
        return out.toString();
    }

    /**
     * Decodes metadata committed together with offset {@code base}; {@code ""} (or {@code null}, which Kafka
     * clients may report for "no metadata") → no ranges.
     *
     * @throws SparseAcksException with the original's error text if {@code metadata} is not a valid encoding
     */
    public static List<AckRange> decode(long base, String metadata) {
        long[] pairs = decodePairs(base, metadata);
        if (pairs.length == 0) {
            return List.of();
        }
        List<AckRange> ranges = new ArrayList<>(pairs.length / 2);
        for (int i = 0; i < pairs.length; i += 2) {
            ranges.add(new AckRange(pairs[i], pairs[i + 1]));
        }
        return Collections.unmodifiableList(ranges);
    }

    /** {@link #decode(long, String)} into flat {@code from, to} pairs (length = 2 × ranges). */
    static long[] decodePairs(long base, String metadata) {
        if (metadata == null || metadata.isEmpty()) {
            return new long[0];
        }
        // The original decodes bytes, not characters: a non-ASCII character fails on its first UTF-8 byte, and the
        // error shows that byte as the code point of the same value.
        Cursor in = new Cursor(metadata.getBytes(StandardCharsets.UTF_8), metadata);
        long[] pairs = new long[Math.max(2, metadata.length())];
        int n = 0;
        while (in.pos < in.buf.length) {
            long from = base + in.nextInt("bad `from` boundary: ");
            long to = from + in.nextInt("bad `to` boundary: ");
            if (from >= to || from <= 0) {
                throw new SparseAcksException("bad range: {" + from + " " + to + "}", metadata);
            }
            if (n + 2 > pairs.length) {
                pairs = Arrays.copyOf(pairs, pairs.length * 2);
            }
            pairs[n++] = from;
            pairs[n++] = to;
            base = to;
        }
        return n == pairs.length ? pairs : Arrays.copyOf(pairs, n);
    }

    /**
     * The {@code sparse_acks} field of get-offsets: each range as {@code <from>-<to>} relative to {@code base}, joined
     * by {@code ,}.
     */
    public static String human(long base, List<AckRange> ranges) {
        StringBuilder out = new StringBuilder();
        for (AckRange r : ranges) {
            if (!out.isEmpty()) {
                out.append(',');
            }
            out.append(r.from() - base).append('-').append(r.to() - base);
        }
        return out.toString();
    }

    /** Human form of committed {@code (offset, metadata)}; {@code ""} if there are no ranges or it doesn't decode. */
    public static String human(long offset, String metadata) {
        long[] pairs;
        try {
            pairs = decodePairs(offset, metadata);
        } catch (SparseAcksException e) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < pairs.length; i += 2) {
            if (i != 0) {
                out.append(',');
            }
            out.append(pairs[i] - offset).append('-').append(pairs[i + 1] - offset);
        }
        return out.toString();
    }

    /** The varint spelling of {@code n}; negative values (only from wrapped deltas) emit their low group alone. */
    static String encodeInt(long n) {
        StringBuilder out = new StringBuilder(MAX_INT_CHARS);
        appendInt(out, n);
        return out.toString();
    }

    /** Decodes a string that holds exactly one number. */
    static long decodeInt(String s) {
        Cursor in = new Cursor(s.getBytes(StandardCharsets.UTF_8), s);
        long n = in.nextInt("");
        if (in.pos != in.buf.length) {
            throw new SparseAcksException("trailing input: " + s.substring(in.pos), s);
        }
        return n;
    }

    private static void appendInt(StringBuilder out, long n) {
        // Arithmetic shift and a "> 0" test, as the original: a negative n stops after its lowest group.
        long group = n & GROUP_MASK;
        n >>= 5;
        while (n > 0) {
            out.append(ALPHABET.charAt((int) (group | CONTINUATION)));
            group = n & GROUP_MASK;
            n >>= 5;
        }
        out.append(ALPHABET.charAt((int) group));
    }

    private static final class Cursor {
        final byte[] buf;
        final String encoded;
        int pos;

        Cursor(byte[] buf, String encoded) {
            this.buf = buf;
            this.encoded = encoded;
        }

        /** Reads one number; {@code context} prefixes the error text (the original's error wrapping). */
        long nextInt(String context) {
            long n = 0;
            int start = pos;
            int i = 0;
            for (; start + i < buf.length && i < MAX_INT_CHARS; i++) {
                int b = buf[start + i] & 0xFF;
                byte ci = DECODE[b];
                if (ci == INVALID) {
                    throw new SparseAcksException(context + "bad char: " + (char) b, encoded);
                }
                // Bits shifted past bit 63 are lost, as with Go's int64 shift.
                n |= (long) (ci & GROUP_MASK) << (5 * i);
                if ((ci & CONTINUATION) == 0) {
                    pos = start + i + 1;
                    return n;
                }
            }
            throw new SparseAcksException(
                    context + "bad sequence: " + new String(buf, start, i, StandardCharsets.ISO_8859_1), encoded);
        }
    }
}
