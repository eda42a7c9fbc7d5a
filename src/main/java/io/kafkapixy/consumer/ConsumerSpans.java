package io.kafkapixy.consumer;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.kafkapixy.tracing.ConsumeTrace;
import io.kafkapixy.tracing.Tracing;
import io.opentelemetry.context.Context;
import org.apache.kafka.common.header.Header;

/**
 * The spans of the messages {@link Consumers} hands out and the settlements it takes ({@link ConsumeTrace}), for every
 * kind of group. The call a span belongs to is the OpenTelemetry context current on the thread that calls
 * {@link Consumers} (a transport makes its call's context current); a settlement's span is also of the trace the
 * message's record carries, found in the record the group still holds. With no spans recorded, nothing is looked up.
 */
final class ConsumerSpans {

    private final Tracing tracing;

    ConsumerSpans(Tracing tracing) {
        this.tracing = tracing;
    }

    /** The context of the call running on this thread; null when no spans are made. */
    Context call() {
        return tracing.recording() ? Context.current() : null;
    }

    /** {@code m} was handed to a request of {@code group} made under {@code call} (null: no spans). */
    void received(Context call, String group, ConsumedMessage m) {
        if (call != null && m != null) {
            ConsumeTrace.received(tracing, call, group, m.topic(), m.partition(), m.offset(), m.attempt(),
                    m.headers());
        }
    }

    /** {@code settle}, in a span of the message's trace when spans are made. */
    CompletableFuture<Void> settle(GroupKind kind, String group, String topic, int partition, long offset,
                                   Settlement how, Supplier<CompletableFuture<Void>> settle) {
        Context call = call();
        if (call == null) {
            return settle.get();
        }
        ConsumeTrace span = ConsumeTrace.settle(tracing, call, how.name(), group, topic, partition, offset,
                kind.heldHeaders(group, topic, partition, offset));
        return settle.get().whenComplete((v, error) -> {
            if (error == null) {
                span.settled();
            } else {
                span.failed(PendingConsume.failure(error));
            }
        });
    }

    /** An ack carried by a consume request: a span only when the message is out from here, so that it is taken. */
    void ackQuietly(GroupKind kind, String group, String topic, int partition, long offset) {
        Context call = call();
        List<Header> held = call == null ? null : kind.heldHeaders(group, topic, partition, offset);
        kind.ackQuietly(group, topic, partition, offset);
        if (held != null) {
            ConsumeTrace.settle(tracing, call, "ack", group, topic, partition, offset, held).settled();
        }
    }

    /**
     * Opens a stream through {@code open}, its deliveries and settlements traced under the call current now; as
     * {@code open} does when no spans are made.
     */
    ConsumerStream stream(GroupKind kind, String group, ConsumerStream.Sink sink,
                          java.util.function.Function<ConsumerStream.Sink, ConsumerStream> open) {
        Context call = call();
        if (call == null) {
            return open.apply(sink);
        }
        return new TracedStream(open.apply(new TracedStream.Deliveries(sink, m -> received(call, group, m))),
                (how, a) -> {
                    List<Header> held = kind.heldHeaders(group, a.topic(), a.partition(), a.offset());
                    return new TracedStream.Settling(ConsumeTrace.settle(tracing, call, how, group, a.topic(),
                            a.partition(), a.offset(), held), held != null);
                });
    }
}
