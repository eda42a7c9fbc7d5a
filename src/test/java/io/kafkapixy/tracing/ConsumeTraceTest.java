package io.kafkapixy.tracing;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A consumed message goes on with the trace of the request that produced it: its receive and settle spans are
 * children of the context its record carries in {@code traceparent}, linked to the call that received or settled
 * it; a record without one makes them children of the call. Named and described after OpenTelemetry's messaging
 * conventions. Spans kept in memory.
 */
class ConsumeTraceTest {

    private static final String PRODUCER_TRACE = "0af7651916cd43dd8448eb211c80319c";
    private static final String SEND_SPAN = "b7ad6b7169203331";
    private static final String CALL_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CALL_SPAN = "00f067aa0ba902b7";
    private static final Context CALL = Context.root().with(Span.wrap(SpanContext.create(CALL_TRACE, CALL_SPAN,
            TraceFlags.getSampled(), TraceState.getDefault())));
    private static final List<Header> TRACED =
            List.of(header("Foo", "bar"), header("traceparent", "00-" + PRODUCER_TRACE + "-" + SEND_SPAN + "-01"));

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final Tracing tracing = Tracing.with(OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider
            .builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build()).build());

    @Test
    void aReceivedMessageContinuesItsRecordsTraceLinkedToTheCall() {
        ConsumeTrace.received(tracing, CALL, "g", "orders", 3, 42, 2, TRACED);

        SpanData span = only();
        assertEquals("receive orders", span.getName());
        assertEquals(SpanKind.CONSUMER, span.getKind());
        assertEquals(PRODUCER_TRACE, span.getTraceId());
        assertEquals(SEND_SPAN, span.getParentSpanId());
        assertEquals(1, span.getLinks().size());
        assertEquals(CALL_SPAN, span.getLinks().getFirst().getSpanContext().getSpanId());
        assertEquals(CALL_TRACE, span.getLinks().getFirst().getSpanContext().getTraceId());
        assertEquals("kafka", attr(span, "messaging.system"));
        assertEquals("orders", attr(span, "messaging.destination.name"));
        assertEquals("3", attr(span, "messaging.destination.partition.id"));
        assertEquals(42L, span.getAttributes().get(AttributeKey.longKey("messaging.kafka.offset")));
        assertEquals("g", attr(span, "messaging.consumer.group.name"));
        assertEquals("receive", attr(span, "messaging.operation.name"));
        assertEquals("receive", attr(span, "messaging.operation.type"));
        assertEquals(2L, span.getAttributes().get(AttributeKey.longKey("kafkapixy.delivery.attempt")));
    }

    @Test
    void aRecordWithoutTraceContextMakesItsSpansChildrenOfTheCall() {
        ConsumeTrace.received(tracing, CALL, "g", "orders", 0, 1, 1, List.of(header("Foo", "bar")));

        SpanData span = only();
        assertEquals(CALL_TRACE, span.getTraceId());
        assertEquals(CALL_SPAN, span.getParentSpanId());
        assertTrue(span.getLinks().isEmpty());
    }

    @Test
    void theRecordsTraceparentIsFoundInAnyCase() {
        ConsumeTrace.received(tracing, CALL, "g", "orders", 0, 1, 1,
                List.of(header("TraceParent", "00-" + PRODUCER_TRACE + "-" + SEND_SPAN + "-01")));

        assertEquals(SEND_SPAN, only().getParentSpanId());
    }

    @Test
    void anAckIsASettleSpanOfTheRecordsTrace() {
        ConsumeTrace.settle(tracing, CALL, "ACK", "g", "orders", 3, 42, TRACED).settled();

        SpanData span = only();
        assertEquals("ack orders", span.getName());
        assertEquals(SpanKind.CLIENT, span.getKind());
        assertEquals(PRODUCER_TRACE, span.getTraceId());
        assertEquals(SEND_SPAN, span.getParentSpanId());
        assertEquals(CALL_SPAN, span.getLinks().getFirst().getSpanContext().getSpanId());
        assertEquals("ack", attr(span, "messaging.operation.name"));
        assertEquals("settle", attr(span, "messaging.operation.type"));
        assertEquals(StatusCode.UNSET, span.getStatus().getStatusCode());
    }

    @Test
    void aSettlementOfAMessageNotHeldHereIsAChildOfTheCall() {
        ConsumeTrace.settle(tracing, CALL, "reject", "g", "orders", 3, 42, null).settled();

        SpanData span = only();
        assertEquals("reject orders", span.getName());
        assertEquals(CALL_SPAN, span.getParentSpanId());
    }

    @Test
    void aRefusedSettlementIsAnErrorWithTheAnswerTheClientGot() {
        ConsumeTrace.settle(tracing, CALL, "renew", "g", "orders", 3, 42, TRACED)
                .failed(new IllegalStateException("not taken"));

        SpanData span = only();
        assertEquals(StatusCode.ERROR, span.getStatus().getStatusCode());
        assertEquals("not taken", span.getStatus().getDescription());
        assertEquals(1, span.getEvents().size(), "the exception is recorded");
    }

    @Test
    void withTracingOffNothingIsMade() {
        ConsumeTrace.received(Tracing.off(), CALL, "g", "orders", 0, 1, 1, TRACED);
        ConsumeTrace settle = ConsumeTrace.settle(Tracing.off(), CALL, "ack", "g", "orders", 0, 1, TRACED);
        settle.settled();

        assertEquals(ConsumeTrace.NONE, settle);
        assertTrue(spans.getFinishedSpanItems().isEmpty());
    }

    private SpanData only() {
        assertEquals(1, spans.getFinishedSpanItems().size(), spans.getFinishedSpanItems().toString());
        return spans.getFinishedSpanItems().getFirst();
    }

    private static String attr(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    private static Header header(String key, String value) {
        return new RecordHeader(key, value.getBytes(StandardCharsets.UTF_8));
    }
}
