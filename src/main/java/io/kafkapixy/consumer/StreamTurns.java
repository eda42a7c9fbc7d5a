package io.kafkapixy.consumer;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The streams of a topic taking messages in turn, in every kind of group: one message each to those with credits,
 * round-robin, until none wants one or the kind's source has none; each stream that took messages sends them
 * together at the end of the round.
 *
 * <p>Not thread-safe: guarded by the lock of the topic that owns it.
 *
 * @param <S> the kind's stream
 * @param <M> what the kind hands a stream
 */
public final class StreamTurns<S extends StreamTurns.Taker<M>, M> {

    /** A stream as the round sees it. Called under the topic's lock; must not block. */
    public interface Taker<M> {

        /** Whether it would take a message now (credits, a client that reads). */
        boolean wants();

        /** Takes {@code message}, spending a credit; true when it is the first since its last {@link #flush()}. */
        boolean take(M message);

        /** Sends what it took. */
        void flush();
    }

    private int next;

    /**
     * One round over {@code streams}: messages from {@code source} (given the stream that will take it; null: none
     * now), one to each stream that wants one in turn. Returns false when the source ran dry.
     */
    public boolean serve(List<S> streams, Function<S, M> source) {
        int n = streams.size();
        if (n == 0) {
            return true;
        }
        // made at the first take: most rounds, e.g. one per ack, hand out nothing
        List<S> took = null;
        try {
            // stops after a full turn in which no stream wanted a message, or when there is none to give
            for (int passed = 0; passed < n; ) {
                S s = streams.get(next % n);
                next = (next + 1) % n;
                if (!s.wants()) {
                    passed++;
                    continue;
                }
                M m = source.apply(s);
                if (m == null) {
                    return false;
                }
                if (s.take(m)) {
                    if (took == null) {
                        took = new ArrayList<>(Math.min(n, 4));
                    }
                    took.add(s);
                }
                passed = 0;
            }
            return true;
        } finally {
            if (took != null) {
                took.forEach(Taker::flush);
            }
        }
    }
}
