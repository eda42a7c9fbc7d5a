package io.kafkapixy.tracing;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import org.apache.kafka.common.header.Header;

/**
 * The spans of a consumed message, after OpenTelemetry's messaging conventions: {@code receive <topic>} when it is
 * handed to a client, and {@code ack}, {@code reject}, {@code renew} or {@code nack <topic>} when the client settles
 * it. Each is a child of the trace context the record carries in its {@code traceparent} header (in any case), so the
 * trace of the request that produced it goes on through the proxy; the call that received or settled it is then a
 * link. A record without one makes the span a child of the call's own context.
 *
 * <p>Made only when spans are recorded ({@link Tracing#recording()}); callers ask that first and skip the work of
 * finding the record's headers otherwise.
 */
public final class ConsumeTrace {

    static final AttributeKey<String> GROUP = AttributeKey.stringKey("messaging.consumer.group.name");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("kafkapixy.delivery.attempt");

    /** A settlement that traces nothing. */
    public static final ConsumeTrace NONE = new ConsumeTrace(null);

    private static final TextMapGetter<List<Header>> RECORD_HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(List<Header> headers) {
            return headers.stream().map(Header::key).toList();
        }

        @Override
        public String get(List<Header> headers, String key) {
            if (headers == null) {
                return null;
            }
            for (int i = headers.size() - 1; i >= 0; i--) {
                Header h = headers.get(i);
                if (h.key().equalsIgnoreCase(key) && h.value() != null) {
                    return new String(h.value(), StandardCharsets.UTF_8);
                }
            }
            return null;
        }
    };

    /** Null for {@link #NONE}. */
    private final Span span;

    private ConsumeTrace(Span span) {
        this.span = span;
    }

    /** A message of {@code group} with record headers {@code headers} was handed to a client under {@code call}. */
    public static void received(Tracing tracing, Context call, String group, String topic, int partition, long offset,
                                int attempt, List<Header> headers) {
        if (!tracing.recording()) {
            return;
        }
        builder(tracing, call, "receive", "receive", group, topic, partition, offset, headers)
                .setAttribute(ATTEMPT, (long) attempt).startSpan().end();
    }

    /**
     * A client settles a message under {@code call}: {@code how} is {@code ack}, {@code reject}, {@code renew} or
     * {@code nack} (any case); {@code headers} are the record's, null when this instance does not hold the message.
     * End the span with {@link #settled} or {@link #failed}.
     */
    public static ConsumeTrace settle(Tracing tracing, Context call, String how, String group, String topic,
                                      int partition, long offset, List<Header> headers) {
        if (!tracing.recording()) {
            return NONE;
        }
        return new ConsumeTrace(builder(tracing, call, how.toLowerCase(Locale.ROOT), "settle", group, topic,
                partition, offset, headers == null ? List.of() : headers).startSpan());
    }

    private static SpanBuilder builder(Tracing tracing, Context call, String operation, String type, String group,
                                       String topic, int partition, long offset, List<Header> headers) {
        Context record = Tracing.PROPAGATOR.extract(Context.root(), headers, RECORD_HEADERS);
        boolean fromRecord = Span.fromContext(record).getSpanContext().isValid();
        SpanBuilder b = tracing.tracer().spanBuilder(operation + " " + topic)
                .setSpanKind(type.equals("receive") ? SpanKind.CONSUMER : SpanKind.CLIENT)
                .setParent(fromRecord ? record : call)
                .setAttribute(ProduceTrace.SYSTEM, "kafka").setAttribute(ProduceTrace.DESTINATION, topic)
                .setAttribute(ProduceTrace.OPERATION_NAME, operation).setAttribute(ProduceTrace.OPERATION_TYPE, type)
                .setAttribute(ProduceTrace.PARTITION, Integer.toString(partition))
                .setAttribute(ProduceTrace.OFFSET, offset).setAttribute(GROUP, group);
        SpanContext caller = Span.fromContext(call).getSpanContext();
        if (fromRecord && caller.isValid()) {
            b.addLink(caller);
        }
        return b;
    }

    /** The settlement was taken. */
    public void settled() {
        if (span != null) {
            span.end();
        }
    }

    /** The settlement was refused or failed: the client was answered {@code error}. */
    public void failed(Throwable error) {
        Tracing.endFailed(span, error);
    }
}
