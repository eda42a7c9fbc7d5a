package io.kafkapixy.tracing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * One produced message's trace: its span (a child of the request's trace context, after OpenTelemetry's messaging
 * conventions) and the trace context its record carries in {@code traceparent} and {@code tracestate} headers. A
 * {@code traceparent} record header the client set itself (in any case) wins: nothing is added. {@link #NONE} when
 * there is nothing to trace: no span, headers as given.
 */
public final class ProduceTrace {

    static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> PARTITION = AttributeKey.stringKey("messaging.destination.partition.id");
    static final AttributeKey<Long> OFFSET = AttributeKey.longKey("messaging.kafka.offset");
    static final String TRACEPARENT = "traceparent";
    static final String TRACESTATE = "tracestate";

    /** Nothing traced. */
    public static final ProduceTrace NONE = new ProduceTrace(null);

    /** Null for {@link #NONE}. */
    private final Span span;

    private ProduceTrace(Span span) {
        this.span = span;
    }

    /**
     * The trace of a message for {@code topic}'s {@code partition} produced under {@code parent}, the request's trace
     * context: a span when spans are made, the parent's context passed on when not, {@link #NONE} when there is
     * neither.
     */
    public static ProduceTrace start(Tracing tracing, Context parent, String topic, int partition) {
        boolean traced = Span.fromContext(parent).getSpanContext().isValid();
        if (!traced && !tracing.recording()) {
            return NONE;
        }
        Span span = tracing.tracer().spanBuilder("send " + topic).setSpanKind(SpanKind.PRODUCER).setParent(parent)
                .setAttribute(SYSTEM, "kafka").setAttribute(DESTINATION, topic).setAttribute(OPERATION_NAME, "send")
                .setAttribute(OPERATION_TYPE, "send").setAttribute(PARTITION, Integer.toString(partition))
                .startSpan();
        return new ProduceTrace(span);
    }

    /** The record's headers: {@code given}, with this trace's context added unless the client set its own. */
    public List<Header> headers(List<Header> given) {
        // any case: REST writes an X-Kafka-traceparent header's name as the original does, "Traceparent"
        if (span == null || given.stream().anyMatch(h -> h.key().equalsIgnoreCase(TRACEPARENT))) {
            return given;
        }
        List<Header> headers = new ArrayList<>(given);
        Tracing.PROPAGATOR.inject(Context.root().with(span), headers, (carrier, key, value) -> carrier.add(
                new RecordHeader(key, value.getBytes(StandardCharsets.UTF_8))));
        return headers;
    }

    /** Kafka took the message at {@code offset}. */
    public void produced(long offset) {
        if (span != null) {
            span.setAttribute(OFFSET, offset);
            span.end();
        }
    }

    /** The message was not produced. */
    public void failed(Throwable error) {
        Tracing.endFailed(span, error);
    }
}
