package io.kafkapixy.config;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * Durations written the way the original's config files write them: Go's {@code time.ParseDuration} syntax
 * ({@code 300ms}, {@code 1.5s}, {@code 1h30m}, {@code -1s}; units {@code ns us µs ms s m h}) and, as yaml.v2 decodes
 * them, a bare YAML number meaning nanoseconds. Values are limited to Go's {@code time.Duration} range (signed 64-bit
 * nanoseconds, about ±292 years); error texts are Go's, so users see the same words as with the original.
 */
public final class Durations {

    /** 2^63, the largest magnitude before the sign is applied; held as an unsigned long. */
    private static final long LIMIT = Long.MIN_VALUE;

    private static final Map<String, Long> UNITS = Map.of(
            "ns", 1L,
            "us", 1_000L,
            "\u00b5s", 1_000L, // U+00B5 micro sign
            "\u03bcs", 1_000L, // U+03BC Greek small letter mu
            "ms", 1_000_000L,
            "s", 1_000_000_000L,
            "m", 60_000_000_000L,
            "h", 3_600_000_000_000L);

    private Durations() {
    }

    /**
     * Parses Go duration syntax exactly as {@code time.ParseDuration} does.
     *
     * @throws IllegalArgumentException with Go's text, e.g. {@code time: invalid duration "x"},
     *                                  {@code time: missing unit in duration "1"},
     *                                  {@code time: unknown unit "d" in duration "1d"}
     */
    public static Duration parse(String text) {
        String s = text;
        boolean negative = false;
        if (!s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
            negative = s.charAt(0) == '-';
            s = s.substring(1);
        }
        if (s.equals("0")) {
            return Duration.ZERO;
        }
        if (s.isEmpty()) {
            throw invalid(text);
        }
        long total = 0; // unsigned, at most 2^63
        int i = 0;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (!(c == '.' || isDigit(c))) {
                throw invalid(text);
            }
            // Integer part.
            int start = i;
            long v = 0; // unsigned, at most 2^63
            while (i < n && isDigit(s.charAt(i))) {
                if (Long.compareUnsigned(v, Long.divideUnsigned(LIMIT, 10)) > 0) {
                    throw invalid(text);
                }
                v = v * 10 + (s.charAt(i) - '0');
                if (Long.compareUnsigned(v, LIMIT) > 0) {
                    throw invalid(text);
                }
                i++;
            }
            boolean pre = i != start;
            // Fractional part: digits beyond what fits are dropped, as in Go.
            long f = 0;
            double scale = 1;
            boolean post = false;
            if (i < n && s.charAt(i) == '.') {
                i++;
                int fracStart = i;
                boolean overflow = false;
                while (i < n && isDigit(s.charAt(i))) {
                    if (!overflow) {
                        long y = f * 10 + (s.charAt(i) - '0'); // meaningful only if f <= (2^63-1)/10
                        if (Long.compareUnsigned(f, Long.MAX_VALUE / 10) > 0 || Long.compareUnsigned(y, LIMIT) > 0) {
                            overflow = true;
                        } else {
                            f = y;
                            scale *= 10;
                        }
                    }
                    i++;
                }
                post = i != fracStart;
            }
            if (!pre && !post) {
                throw invalid(text); // no digits, e.g. ".s"
            }
            int unitStart = i;
            while (i < n && s.charAt(i) != '.' && !isDigit(s.charAt(i))) {
                i++;
            }
            if (i == unitStart) {
                throw new IllegalArgumentException("time: missing unit in duration " + quote(text));
            }
            String unitText = s.substring(unitStart, i);
            Long unit = UNITS.get(unitText);
            if (unit == null) {
                throw new IllegalArgumentException(
                        "time: unknown unit " + quote(unitText) + " in duration " + quote(text));
            }
            if (Long.compareUnsigned(v, Long.divideUnsigned(LIMIT, unit)) > 0) {
                throw invalid(text);
            }
            v *= unit;
            if (f != 0) {
                v += (long) (unsignedToDouble(f) * ((double) unit / scale));
                if (Long.compareUnsigned(v, LIMIT) > 0) {
                    throw invalid(text);
                }
            }
            total += v; // both at most 2^63, so the sum wraps only when it is 2^64
            if (Long.compareUnsigned(total, LIMIT) > 0 || (total == 0 && v != 0)) {
                throw invalid(text);
            }
        }
        if (negative) {
            return Duration.ofNanos(-total); // -(2^63) wraps to Long.MIN_VALUE, which is what we want
        }
        if (total == LIMIT) {
            throw invalid(text);
        }
        return Duration.ofNanos(total);
    }

    /**
     * The value of a YAML scalar for a duration key, as yaml.v2 decodes it into {@code time.Duration}: an integer is
     * nanoseconds, a float is nanoseconds truncated toward zero, a string is Go duration syntax.
     *
     * @param value what SnakeYAML constructed for the scalar: Integer, Long, BigInteger, Double or String
     * @throws IllegalArgumentException if the value is out of range or not a duration
     */
    public static Duration fromYaml(Object value) {
        return switch (value) {
            case Integer i -> Duration.ofNanos(i);
            case Long l -> Duration.ofNanos(l);
            case BigInteger b -> {
                if (b.bitLength() > 63) {
                    throw new IllegalArgumentException(b + " nanoseconds is out of range");
                }
                yield Duration.ofNanos(b.longValue());
            }
            case Double d -> {
                if (!(d >= -0x1p63 && d < 0x1p63)) { // also rejects NaN
                    throw new IllegalArgumentException(d + " nanoseconds is out of range");
                }
                yield Duration.ofNanos(d.longValue());
            }
            case String s -> parse(s);
            default -> throw new IllegalArgumentException("not a duration: " + value);
        };
    }

    /**
     * Formats like Go's {@code Duration.String()}: {@code 0s}, {@code 1ns}, {@code 1.1µs}, {@code 500ms},
     * {@code 1.5s}, {@code 5m0s}, {@code 1h30m0s}, {@code -1s}.
     *
     * @throws ArithmeticException for {@link Duration#ofSeconds(long) Duration.ofSeconds(Long.MIN_VALUE)}, which has
     *                             no absolute value and is far outside any Go duration
     */
    public static String format(Duration d) {
        boolean negative = d.isNegative();
        Duration abs = d.abs();
        long seconds = abs.getSeconds();
        long nanos = abs.getNano();
        StringBuilder out = new StringBuilder();
        if (seconds == 0) {
            // Below one second Go switches to the largest unit that keeps an integer part.
            if (nanos == 0) {
                return "0s";
            } else if (nanos < 1_000) {
                out.append(nanos).append("ns");
            } else if (nanos < 1_000_000) {
                out.append(nanos / 1_000).append(fraction(nanos % 1_000, 3)).append("\u00b5s");
            } else {
                out.append(nanos / 1_000_000).append(fraction(nanos % 1_000_000, 6)).append("ms");
            }
        } else {
            long hours = seconds / 3600;
            long minutes = seconds / 60 % 60;
            if (hours > 0) {
                out.append(hours).append('h');
            }
            if (hours > 0 || minutes > 0) {
                out.append(minutes).append('m');
            }
            out.append(seconds % 60).append(fraction(nanos, 9)).append('s');
        }
        return negative ? "-" + out : out.toString();
    }

    /** {@code .ddd} for {@code value / 10^digits} without trailing zeros, or "" when the value is 0. */
    private static String fraction(long value, int digits) {
        if (value == 0) {
            return "";
        }
        String padded = String.format("%0" + digits + "d", value);
        int end = padded.length();
        while (padded.charAt(end - 1) == '0') {
            end--;
        }
        return "." + padded.substring(0, end);
    }

    private static double unsignedToDouble(long v) {
        return v >= 0 ? v : (double) (v >>> 1) * 2.0 + (v & 1);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException("time: invalid duration " + quote(text));
    }

    /** Go's {@code time.quote}: double quotes, {@code \"} and {@code \\} escaped, other bytes outside printable ASCII as {@code \xNN}. */
    static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            int width = Character.charCount(cp);
            if (cp < ' ' || cp >= 0x80) {
                for (byte b : s.substring(i, i + width).getBytes(StandardCharsets.UTF_8)) {
                    out.append(String.format("\\x%02x", b & 0xff));
                }
            } else {
                if (cp == '"' || cp == '\\') {
                    out.append('\\');
                }
                out.append((char) cp);
            }
            i += width;
        }
        return out.append('"').toString();
    }
}
