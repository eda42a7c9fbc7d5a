package io.kafkapixy.ops;

import java.util.concurrent.atomic.LongAdder;

import io.helidon.metrics.api.Counter;
import io.helidon.metrics.api.Tag;

/**
 * The meters of streaming Consume calls ({@code kafkapixy_stream_*}), over every cluster and group: credits granted
 * and unspent, messages sent, acks and nacks with what became of them, and messages offered again because their
 * stream ended. Thread-safe.
 */
public final class StreamMeters {

    private final LongAdder unspentCredits = new LongAdder();
    private final Counter credits;
    private final Counter messages;
    private final Counter acksApplied;
    private final Counter acksNotHeld;
    private final Counter nacksGivenBack;
    private final Counter nacksNotHeld;
    private final Counter givenBackOnEnd;

    StreamMeters(PixyMetrics m) {
        m.gauge("kafkapixy.stream.credits", "Credits granted by open streams and not spent yet",
                unspentCredits::sum);
        credits = m.counter("kafkapixy.stream.credits.granted", "Credits granted by streaming Consume calls");
        messages = m.counter("kafkapixy.stream.messages", "Messages sent on streaming Consume calls");
        acksApplied = m.counter("kafkapixy.stream.acks", "Acks received on streaming Consume calls",
                Tag.create("outcome", "applied"));
        acksNotHeld = m.counter("kafkapixy.stream.acks", "Acks received on streaming Consume calls",
                Tag.create("outcome", "not_held"));
        nacksGivenBack = m.counter("kafkapixy.stream.nacks", "Nacks received on streaming Consume calls",
                Tag.create("outcome", "given_back"));
        nacksNotHeld = m.counter("kafkapixy.stream.nacks", "Nacks received on streaming Consume calls",
                Tag.create("outcome", "not_held"));
        givenBackOnEnd = m.counter("kafkapixy.stream.given.back",
                "Unacked messages offered again at once because their stream ended");
    }

    /** Credits a stream is about to be granted: unspent from now on. */
    public void unspent(long n) {
        unspentCredits.add(n);
    }

    /** Credits a stream was granted (after {@link #unspent}). */
    public void granted(long n) {
        credits.increment(n);
    }

    /** {@code n} messages went out in one response. */
    public void sent(int n) {
        messages.increment(n);
        unspentCredits.add(-n);
    }

    /** A stream ended with {@code unspent} credits it had not used. */
    public void ended(long unspent, int givenBack) {
        unspentCredits.add(-unspent);
        givenBackOnEnd.increment(givenBack);
    }

    /** One request's acks: {@code applied} taken, {@code notHeld} of partitions no longer held here. */
    public void acks(int applied, int notHeld) {
        if (applied > 0) {
            acksApplied.increment(applied);
        }
        if (notHeld > 0) {
            acksNotHeld.increment(notHeld);
        }
    }

    public void nack(boolean givenBack) {
        (givenBack ? nacksGivenBack : nacksNotHeld).increment();
    }
}
