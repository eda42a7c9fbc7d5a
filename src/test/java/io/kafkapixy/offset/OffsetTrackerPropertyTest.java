package io.kafkapixy.offset;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

/**
 * Random offer/ack/adjust orders checked against a plain set-of-acked-offsets model; every committed state must
 * decode back to itself.
 */
class OffsetTrackerPropertyTest {

    private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");
    private static final int WINDOW = 200;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void anyAckOrderCommitsExactlyTheAckedSetAndReadsBackTheSame(long seed) {
        Random random = new Random(seed);
        long base = seed % 3 == 0 ? (random.nextLong() & (Long.MAX_VALUE >> 1)) : random.nextInt(10_000);
        Model model = new Model(base);
        OffsetTracker tracker = new OffsetTracker(base, "", Duration.ofSeconds(30));

        List<Long> order = new ArrayList<>();
        for (int i = 0; i < WINDOW; i++) {
            order.add(base + i);
        }
        Collections.shuffle(order, random);
        for (int step = 0; step < order.size(); step++) {
            long o = order.get(step);
            String because = "seed " + seed + " step " + step + " ack " + o;
            if (random.nextInt(4) == 0) {
                // An ack of an offset that is already acked, possibly below the committed offset.
                long again = base + random.nextInt(WINDOW);
                AckOutcome outcome = tracker.onAcked(again);
                assertThat(because, outcome.duplicateAck(), is(model.isAcked(again)));
                model.ack(again);
            }
            if (random.nextBoolean()) {
                long offered = base + random.nextInt(WINDOW);
                int count = tracker.onOffered(offered, T0);
                if (!model.isAcked(offered)) {
                    model.offers.add(offered);
                }
                assertThat(because, count, is(model.offers.size()));
            }
            boolean wasOffered = model.offers.contains(o);
            AckOutcome outcome = tracker.onAcked(o);
            assertThat(because, outcome.duplicateAck(), is(model.isAcked(o)));
            assertThat(because, outcome.offerMissing(), is(!wasOffered));
            model.ack(o);
            if (random.nextInt(20) == 0) {
                long realStart = model.offset + random.nextInt(10) - 3;
                List<Long> dropped = tracker.adjust(realStart);
                assertThat(because, dropped, is(model.adjust(realStart)));
            }
            check(because, tracker, model);
        }
        assertThat(tracker.offset(), is(Math.max(base + WINDOW, model.offset)));
        assertThat(tracker.metadata(), is(""));
    }

    private static void check(String because, OffsetTracker tracker, Model model) {
        assertThat(because, tracker.offset(), is(model.offset));
        assertThat(because, tracker.ackedRanges(), is(model.ranges()));
        assertThat(because, tracker.metadata(), is(SparseAcks.encode(model.offset, model.ranges())));
        assertThat(because, tracker.offers().stream().map(Offer::offset).toList(), is(List.copyOf(model.offers)));

        OffsetTracker reread = new OffsetTracker(tracker.offset(), tracker.metadata(), Duration.ZERO);
        assertThat(because, reread.badMetadata(), is(false));
        assertThat(because, reread.ackedRanges(), is(tracker.ackedRanges()));
        assertThat(because, reread.metadata(), is(tracker.metadata()));
        assertThat(because, SparseAcks.human(tracker.offset(), tracker.metadata()), is(tracker.sparseAcks()));

        for (long o = model.base - 2; o < model.base + WINDOW + 2; o++) {
            assertThat(because + " isAcked " + o, tracker.isAcked(o), is(model.isAcked(o)));
            long next = o + 1;
            while (model.isAcked(next)) {
                next++;
            }
            assertThat(because + " nextNotAcked " + o, tracker.nextNotAcked(o), is(next));
        }
    }

    /** Acked offsets as a bit set over [base, base + 2 × WINDOW); everything below {@code offset} is done. */
    private static final class Model {
        final long base;
        final BitSet acked = new BitSet();
        final TreeSet<Long> offers = new TreeSet<>();
        long offset;

        Model(long base) {
            this.base = base;
            this.offset = base;
        }

        boolean isAcked(long o) {
            return o < offset || (o >= base && acked.get((int) (o - base)));
        }

        void ack(long o) {
            offers.remove(o);
            if (o >= offset) {
                acked.set((int) (o - base));
                advance();
            }
        }

        List<Long> adjust(long realStart) {
            if (realStart < offset) {
                return List.of();
            }
            List<Long> dropped = new ArrayList<>(offers.headSet(realStart));
            offers.removeAll(dropped);
            acked.set((int) (offset - base), (int) (realStart - base));
            offset = realStart;
            advance();
            return dropped;
        }

        private void advance() {
            offset = base + acked.nextClearBit((int) (offset - base));
        }

        List<AckRange> ranges() {
            List<AckRange> out = new ArrayList<>();
            int from = acked.nextSetBit((int) (offset - base));
            while (from >= 0) {
                int to = acked.nextClearBit(from);
                out.add(new AckRange(base + from, base + to));
                from = acked.nextSetBit(to);
            }
            return out;
        }
    }
}
