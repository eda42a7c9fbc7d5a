package io.kafkapixy.offset;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The sparse-acks codec, against the original's vectors. */
class SparseAcksTest {

    @ParameterizedTest(name = "{0} is spelled {1}")
    @CsvSource({
            "0, A", "1, B", "31, f", "32, gB", "33, hB", "63, /B", "64, gC", "1023, /f", "1024, ggB",
            "100000, g1hD", "9223372036854775806, +///////////H", "9223372036854775807, ////////////H"})
    void integersAreLittleEndianBase32VarintsOverTheBase64Alphabet(long n, String spelled) {
        assertThat(SparseAcks.encodeInt(n), is(spelled));
        assertThat(SparseAcks.decodeInt(spelled), is(n));
    }

    @Test
    void aNegativeIntegerIsSpelledByItsLowestGroupAloneAsInTheOriginal() {
        assertThat(SparseAcks.encodeInt(-1), is("f"));
        assertThat(SparseAcks.encodeInt(-32), is("A"));
    }

    @Test
    void everySmallIntegerSurvivesARoundTrip() {
        for (long n = 0; n < 40_000; n++) {
            assertThat(SparseAcks.decodeInt(SparseAcks.encodeInt(n)), is(n));
        }
        Random random = new Random(42);
        for (int i = 0; i < 10_000; i++) {
            long n = random.nextLong() & Long.MAX_VALUE;
            assertThat(SparseAcks.decodeInt(SparseAcks.encodeInt(n)), is(n));
        }
    }

    static Stream<Arguments> referenceVectors() {
        return Stream.of(
                Arguments.of(300L, List.of(new AckRange(302, 303)), "CB", "2-3"),
                Arguments.of(301L, List.of(new AckRange(302, 305), new AckRange(307, 309), new AckRange(310, 313)),
                        "BDCCBD", "1-4,6-8,9-12"),
                Arguments.of(312L, List.of(new AckRange(398, 400), new AckRange(4496, 4497)), "2CCggEB",
                        "86-88,4184-4185"),
                Arguments.of(1000L, List.of(new AckRange(1001, 1033)), "BgB", "1-33"),
                Arguments.of(0L, List.of(new AckRange(Long.MAX_VALUE - 1, Long.MAX_VALUE)), "+///////////HB",
                        "9223372036854775806-9223372036854775807"),
                Arguments.of(100L, List.of(new AckRange(101, 102)), "BB", "1-2"),
                Arguments.of(0L, List.of(new AckRange(1, 2)), "BB", "1-2"),
                Arguments.of(1000L, List.of(), "", ""));
    }

    @ParameterizedTest(name = "[{index}] base {0}: {2}")
    @MethodSource("referenceVectors")
    void rangesEncodeToTheReferenceMetadata(long base, List<AckRange> ranges, String metadata, String human) {
        assertThat(SparseAcks.encode(base, ranges), is(metadata));
    }

    @ParameterizedTest(name = "[{index}] base {0}: {2}")
    @MethodSource("referenceVectors")
    void referenceMetadataDecodesToTheRanges(long base, List<AckRange> ranges, String metadata, String human) {
        assertThat(SparseAcks.decode(base, metadata), is(ranges));
    }

    @ParameterizedTest(name = "[{index}] base {0}: {2} is {3}")
    @MethodSource("referenceVectors")
    void theHumanFormListsRangesRelativeToTheCommittedOffset(long base, List<AckRange> ranges, String metadata,
            String human) {
        assertThat(SparseAcks.human(base, ranges), is(human));
        assertThat(SparseAcks.human(base, metadata), is(human));
    }

    @Test
    void foreignLookingMetadataDecodesWhenItIsValid() {
        assertThat(SparseAcks.decode(1000, "abra1234+/P"),
                is(List.of(new AckRange(1026, 1053), new AckRange(1896, 17178584637L))));
        assertThat(SparseAcks.human(1000, "abra1234+/P"), is("26-53,896-17178583637"));
    }

    @ParameterizedTest(name = "{0} fails with: {1}")
    @CsvSource(delimiter = '|', value = {
            "AA              | bad range: {10000 10000}",
            "0123456789012a  | bad `from` boundary: bad sequence: 0123456789012",
            "a0123456789012b | bad `to` boundary: bad sequence: 0123456789012",
            "1@b             | bad `from` boundary: bad char: @",
            "a@b             | bad `to` boundary: bad char: @",
            "B               | 'bad `to` boundary: bad sequence: '",
            "g               | bad `from` boundary: bad sequence: g",
            "BBg             | bad `from` boundary: bad sequence: g",
            "abra1234+/PS    | 'bad `to` boundary: bad sequence: '",
            "B=              | bad `to` boundary: bad char: ="})
    void undecodableMetadataFailsWithTheOriginalsErrorText(String metadata, String error) {
        SparseAcksException e = assertThrows(SparseAcksException.class, () -> SparseAcks.decode(10000, metadata));
        assertThat(e.getMessage(), is(error));
        assertThat(e.encoded(), is(metadata));
        assertThat(e.wrappedMessage(), is("bad encoding: " + metadata + ": " + error));
        assertThat(SparseAcks.human(10000, metadata), is(""));
    }

    @Test
    void aRangeMustStartAboveZero() {
        SparseAcksException e = assertThrows(SparseAcksException.class, () -> SparseAcks.decode(0, "AB"));
        assertThat(e.getMessage(), is("bad range: {0 1}"));
    }

    @Test
    void aNonAsciiCharacterFailsOnItsFirstUtf8ByteShownAsThatCodePoint() {
        // Go prints the byte 0xC3 with %c, i.e. as U+00C3.
        SparseAcksException e = assertThrows(SparseAcksException.class, () -> SparseAcks.decode(10, "Bé"));
        assertThat(e.getMessage(), is("bad `to` boundary: bad char: \u00C3"));
    }

    @Test
    void aThirteenthCharacterOverflowsIntoTheSignBitLikeGosInt64() {
        // 12 continuation groups of 31 then a final 31 << 60: all 64 bits set, i.e. -1.
        assertThat(SparseAcks.decodeInt("////////////f"), is(-1L));
        // A gap of -1 puts the range just below the base; the original accepts it.
        assertThat(SparseAcks.decode(10000, "////////////fB"), is(List.of(new AckRange(9999, 10000))));
    }

    @Test
    void nonCanonicalSpellingsDecodeToTheSameValue() {
        assertThat(SparseAcks.decodeInt("gA"), is(0L));
        assertThat(SparseAcks.decode(10, "gAB"), is(SparseAcks.decode(10, "AB")));
    }

    @Test
    void emptyMetadataMeansNoRanges() {
        assertThat(SparseAcks.decode(5, ""), is(empty()));
        assertThat(SparseAcks.decode(5, null), is(empty()));
        assertThat(SparseAcks.human(5, ""), is(""));
        assertThat(SparseAcks.encode(5, List.of()), is(""));
    }

    @Test
    void randomRangeListsSurviveAnEncodeDecodeRoundTrip() {
        Random random = new Random(7);
        for (int round = 0; round < 2_000; round++) {
            long base = random.nextInt(3) == 0 ? random.nextLong() & (Long.MAX_VALUE >> 2) : random.nextInt(1000);
            List<AckRange> ranges = new ArrayList<>();
            long at = base;
            int count = random.nextInt(20);
            for (int i = 0; i < count; i++) {
                long from = at + 1 + gap(random);
                long to = from + 1 + gap(random);
                ranges.add(new AckRange(from, to));
                at = to;
            }
            String metadata = SparseAcks.encode(base, ranges);
            assertThat(metadata, SparseAcks.decode(base, metadata), is(ranges));
            assertThat(metadata.matches("[A-Za-z0-9+/]*"), is(true));
        }
    }

    private static long gap(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> random.nextInt(32);
            case 2 -> random.nextInt(100_000);
            default -> random.nextLong() & 0xFFFF_FFFFL;
        };
    }
}
