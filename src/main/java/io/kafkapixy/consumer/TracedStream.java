package io.kafkapixy.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Consumer;

import io.kafkapixy.errors.PixyException;
import io.kafkapixy.tracing.ConsumeTrace;

/**
 * A stream whose settlements make spans ({@link ConsumerSpans#stream}): each ack, reject, renewal or nack one span,
 * started before the stream takes it and ended with whether the message was out with a client here. A batch's count
 * of messages not taken does not say which ones; a message is taken when it was held here as the batch came in.
 */
final class TracedStream implements ConsumerStream {

    /** Starts the span of one settlement, {@code how} ({@code ack}, {@code reject}, {@code renew}, {@code nack}). */
    interface Spans extends BiFunction<String, Ack, Settling> {
    }

    /** A settlement's span, and whether its message was out with a client here when it started. */
    record Settling(ConsumeTrace trace, boolean held) {
        void ended() {
            if (held) {
                trace.settled();
            } else {
                trace.failed(NOT_HELD);
            }
        }
    }

    private static final PixyException NOT_HELD = PixyException.ackTimeout();

    private final ConsumerStream stream;
    private final Spans spans;

    TracedStream(ConsumerStream stream, Spans spans) {
        this.stream = stream;
        this.spans = spans;
    }

    /** A sink that reports each message delivered to {@code received} before it goes on to {@code sink}. */
    record Deliveries(Sink sink, Consumer<ConsumedMessage> received) implements Sink {
        @Override
        public boolean deliver(ConsumedMessage message) {
            received.accept(message);
            return sink.deliver(message);
        }

        @Override
        public boolean flush() {
            return sink.flush();
        }

        @Override
        public boolean ready() {
            return sink.ready();
        }

        @Override
        public void end(PixyException reason, int givenBack) {
            sink.end(reason, givenBack);
        }

        @Override
        public String peer() {
            return sink.peer();
        }
    }

    @Override
    public int ack(List<Ack> acks) {
        return settle("ack", acks, stream::ack);
    }

    @Override
    public int reject(List<Ack> rejects) {
        return settle("reject", rejects, stream::reject);
    }

    @Override
    public int renew(List<Ack> renewals) {
        return settle("renew", renewals, stream::renew);
    }

    private int settle(String how, List<Ack> batch, java.util.function.ToIntFunction<List<Ack>> settle) {
        List<Settling> traces = new ArrayList<>(batch.size());
        for (Ack a : batch) {
            traces.add(spans.apply(how, a));
        }
        int notTaken;
        try {
            notTaken = settle.applyAsInt(batch);
        } catch (RuntimeException e) {
            traces.forEach(t -> t.trace().failed(e));
            throw e;
        }
        traces.forEach(Settling::ended);
        return notTaken;
    }

    @Override
    public boolean nack(String topic, int partition, long offset, Duration delay) {
        ConsumeTrace trace = spans.apply("nack", new Ack(topic, partition, offset)).trace();
        boolean taken;
        try {
            taken = stream.nack(topic, partition, offset, delay);
        } catch (RuntimeException e) {
            trace.failed(e);
            throw e;
        }
        new Settling(trace, taken).ended();
        return taken;
    }

    @Override
    public void credit(long n) {
        stream.credit(n);
    }

    @Override
    public int close() {
        return stream.close();
    }

    @Override
    public List<String> topics() {
        return stream.topics();
    }

    @Override
    public void resume() {
        stream.resume();
    }
}
