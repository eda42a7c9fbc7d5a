package io.kafkapixy.config;

import java.math.BigInteger;
import java.time.Duration;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Go's {@code time.ParseDuration} and {@code Duration.String()} vectors (Go's own time_test.go tables). */
class DurationsTest {

    private static final long S = 1_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final long US = 1_000L;
    private static final long M = 60 * S;
    private static final long H = 60 * M;

    static Stream<Arguments> validDurations() {
        return Stream.of(
                Arguments.of("0", 0L),
                Arguments.of("5s", 5 * S),
                Arguments.of("30s", 30 * S),
                Arguments.of("1478s", 1478 * S),
                Arguments.of("-5s", -5 * S),
                Arguments.of("+5s", 5 * S),
                Arguments.of("-0", 0L),
                Arguments.of("+0", 0L),
                Arguments.of("5.0s", 5 * S),
                Arguments.of("5.6s", 5 * S + 600 * MS),
                Arguments.of("5.s", 5 * S),
                Arguments.of(".5s", 500 * MS),
                Arguments.of("1.0s", S),
                Arguments.of("1.00s", S),
                Arguments.of("1.004s", S + 4 * MS),
                Arguments.of("1.0040s", S + 4 * MS),
                Arguments.of("100.00100s", 100 * S + MS),
                Arguments.of("10ns", 10L),
                Arguments.of("11us", 11 * US),
                Arguments.of("12\u00b5s", 12 * US),
                Arguments.of("12\u03bcs", 12 * US),
                Arguments.of("13ms", 13 * MS),
                Arguments.of("14s", 14 * S),
                Arguments.of("15m", 15 * M),
                Arguments.of("16h", 16 * H),
                Arguments.of("3h30m", 3 * H + 30 * M),
                Arguments.of("1h30m", 90 * M),
                Arguments.of("300ms", 300 * MS),
                Arguments.of("1.5s", 1500 * MS),
                Arguments.of("-1s", -S),
                Arguments.of("10.5s4m", 4 * M + 10 * S + 500 * MS),
                Arguments.of("-2m3.4s", -(2 * M + 3 * S + 400 * MS)),
                Arguments.of("1h2m3s4ms5us6ns", H + 2 * M + 3 * S + 4 * MS + 5 * US + 6),
                Arguments.of("39h9m14.425s", 39 * H + 9 * M + 14 * S + 425 * MS),
                Arguments.of("52763797000ns", 52763797000L),
                Arguments.of("0.3333333333333333333h", 20 * M),
                Arguments.of("9007199254740993ns", (1L << 53) + 1),
                Arguments.of("9223372036854775807ns", Long.MAX_VALUE),
                Arguments.of("9223372036854775.807us", Long.MAX_VALUE),
                Arguments.of("9223372036s854ms775us807ns", Long.MAX_VALUE),
                Arguments.of("-9223372036854775808ns", Long.MIN_VALUE),
                Arguments.of("-9223372036854775.808us", Long.MIN_VALUE),
                Arguments.of("-9223372036s854ms775us808ns", Long.MIN_VALUE),
                Arguments.of("-2562047h47m16.854775808s", Long.MIN_VALUE),
                Arguments.of("0.100000000000000000000h", 6 * M),
                Arguments.of("0.830103483285477580700h", 49 * M + 48 * S + 372539827));
    }

    @ParameterizedTest(name = "\"{0}\" is {1}ns")
    @MethodSource("validDurations")
    void goDurationSyntaxParsesAsGoDoes(String text, long nanos) {
        assertEquals(Duration.ofNanos(nanos), Durations.parse(text));
    }

    static Stream<Arguments> invalidDurations() {
        return Stream.of(
                Arguments.of("", "time: invalid duration \"\""),
                Arguments.of("3", "time: missing unit in duration \"3\""),
                Arguments.of("-", "time: invalid duration \"-\""),
                Arguments.of("s", "time: invalid duration \"s\""),
                Arguments.of(".", "time: invalid duration \".\""),
                Arguments.of("-.", "time: invalid duration \"-.\""),
                Arguments.of(".s", "time: invalid duration \".s\""),
                Arguments.of("+.s", "time: invalid duration \"+.s\""),
                Arguments.of("1d", "time: unknown unit \"d\" in duration \"1d\""),
                Arguments.of("1.5S", "time: unknown unit \"S\" in duration \"1.5S\""),
                Arguments.of("Kaboom!", "time: invalid duration \"Kaboom!\""),
                Arguments.of("5 s", "time: unknown unit \" s\" in duration \"5 s\""),
                Arguments.of("1\u00e9", "time: unknown unit \"\\xc3\\xa9\" in duration \"1\\xc3\\xa9\""),
                Arguments.of("9223372036854775808ns", "time: invalid duration \"9223372036854775808ns\""),
                Arguments.of("9223372036854775.808us", "time: invalid duration \"9223372036854775.808us\""),
                Arguments.of("9223372036854ms775us808ns", "time: invalid duration \"9223372036854ms775us808ns\""),
                Arguments.of("-9223372036854775809ns", "time: invalid duration \"-9223372036854775809ns\""),
                Arguments.of("3000000h", "time: invalid duration \"3000000h\""),
                Arguments.of("9223372036854775808ns9223372036854775808ns",
                        "time: invalid duration \"9223372036854775808ns9223372036854775808ns\""));
    }

    @ParameterizedTest(name = "\"{0}\" fails with {1}")
    @MethodSource("invalidDurations")
    void invalidDurationsFailWithGosText(String text, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parse(text));
        assertEquals(message, e.getMessage());
    }

    static Stream<Arguments> yamlValues() {
        return Stream.of(
                Arguments.of(1500, Duration.ofNanos(1500)),
                Arguments.of(5_000_000_000L, Duration.ofSeconds(5)),
                Arguments.of(BigInteger.valueOf(7), Duration.ofNanos(7)),
                Arguments.of(0, Duration.ZERO),
                Arguments.of(-3, Duration.ofNanos(-3)),
                Arguments.of(2.9, Duration.ofNanos(2)),
                Arguments.of("250ms", Duration.ofMillis(250)));
    }

    @ParameterizedTest(name = "{0} is {1}")
    @MethodSource("yamlValues")
    void yamlNumbersAreNanosecondsAndStringsAreGoSyntax(Object value, Duration expected) {
        assertEquals(expected, Durations.fromYaml(value));
    }

    @Test
    void yamlNumbersOutsideGoDurationRangeAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> Durations.fromYaml(BigInteger.ONE.shiftLeft(63)));
        assertThrows(IllegalArgumentException.class, () -> Durations.fromYaml(1e19));
        assertThrows(IllegalArgumentException.class, () -> Durations.fromYaml(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> Durations.fromYaml(true));
    }

    static Stream<Arguments> formatted() {
        return Stream.of(
                Arguments.of(0L, "0s"),
                Arguments.of(1L, "1ns"),
                Arguments.of(1100L, "1.1\u00b5s"),
                Arguments.of(2200 * US, "2.2ms"),
                Arguments.of(500 * MS, "500ms"),
                Arguments.of(3300 * MS, "3.3s"),
                Arguments.of(5 * M, "5m0s"),
                Arguments.of(H + 30 * M, "1h30m0s"),
                Arguments.of(4 * M + 5 * S, "4m5s"),
                Arguments.of(4 * M + 5001 * MS, "4m5.001s"),
                Arguments.of(5 * H + 6 * M + 7001 * MS, "5h6m7.001s"),
                Arguments.of(8 * M + 1, "8m0.000000001s"),
                Arguments.of(-S, "-1s"),
                Arguments.of(-1L, "-1ns"),
                Arguments.of(Long.MAX_VALUE, "2562047h47m16.854775807s"),
                Arguments.of(Long.MIN_VALUE, "-2562047h47m16.854775808s"));
    }

    @ParameterizedTest(name = "{0}ns prints as {1}")
    @MethodSource("formatted")
    void formatPrintsLikeGo(long nanos, String expected) {
        assertEquals(expected, Durations.format(Duration.ofNanos(nanos)));
    }

    @ParameterizedTest(name = "{1} round-trips")
    @MethodSource("formatted")
    void formattedDurationsParseBack(long nanos, String text) {
        assertEquals(Duration.ofNanos(nanos), Durations.parse(text));
    }
}
