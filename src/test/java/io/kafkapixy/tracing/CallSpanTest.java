package io.kafkapixy.tracing;

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
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A call's server span follows OpenTelemetry's HTTP and RPC conventions: named for the route or the method, a child
 * of the caller's context, the status the client got recorded, and an error only when the server failed. With
 * tracing off the caller's context is passed on untouched. Spans kept in memory.
 */
class CallSpanTest {

    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CLIENT_SPAN = "00f067aa0ba902b7";
    private static final Context CALLER = Context.root().with(Span.wrap(SpanContext.createFromRemoteParent(TRACE_ID,
            CLIENT_SPAN, TraceFlags.getSampled(), TraceState.getDefault())));

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final Tracing tracing = Tracing.with(OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider
            .builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build()).build());

    @Test
    void aRestCallIsNamedForItsMethodAndRouteAndIsAChildOfTheCaller() {
        CallSpan call = CallSpan.http(tracing, CALLER, "POST", "/topics/foo/messages", false);

        call.answered("/topics/{topic}/messages", 200);

        SpanData span = only();
        assertEquals("POST /topics/{topic}/messages", span.getName());
        assertEquals(SpanKind.SERVER, span.getKind());
        assertEquals(TRACE_ID, span.getTraceId());
        assertEquals(CLIENT_SPAN, span.getParentSpanId());
        assertEquals("POST", span.getAttributes().get(AttributeKey.stringKey("http.request.method")));
        assertEquals("/topics/foo/messages", span.getAttributes().get(AttributeKey.stringKey("url.path")));
        assertEquals("http", span.getAttributes().get(AttributeKey.stringKey("url.scheme")));
        assertEquals("/topics/{topic}/messages", span.getAttributes().get(AttributeKey.stringKey("http.route")));
        assertEquals(200L, span.getAttributes().get(AttributeKey.longKey("http.response.status_code")));
        assertEquals(StatusCode.UNSET, span.getStatus().getStatusCode());
    }

    @Test
    void theCallsOwnWorkIsMadeUnderItsSpan() {
        CallSpan call = CallSpan.http(tracing, CALLER, "GET", "/x", true);
        SpanContext inside = Span.fromContext(call.context()).getSpanContext();

        call.answered(null, 404);

        assertEquals(only().getSpanId(), inside.getSpanId());
        assertEquals("GET", only().getName(), "no route matched: the method alone");
        assertEquals("https", only().getAttributes().get(AttributeKey.stringKey("url.scheme")));
    }

    @Test
    void aServerFailureIsAnErrorAndARefusalOfTheRequestIsNot() {
        CallSpan.http(tracing, CALLER, "GET", "/a", false).answered("/a", 503);
        CallSpan.http(tracing, CALLER, "GET", "/b", false).answered("/b", 404);

        SpanData failed = named("GET /a");
        assertEquals(StatusCode.ERROR, failed.getStatus().getStatusCode());
        assertEquals("503", failed.getAttributes().get(AttributeKey.stringKey("error.type")));
        SpanData refused = named("GET /b");
        assertEquals(StatusCode.UNSET, refused.getStatus().getStatusCode());
        assertNull(refused.getAttributes().get(AttributeKey.stringKey("error.type")));
    }

    @Test
    void anUnknownRequestMethodIsNamedOther() {
        CallSpan.http(tracing, CALLER, "BREW", "/pot", false).answered(null, 405);

        assertEquals("_OTHER", only().getName());
        assertEquals("_OTHER", only().getAttributes().get(AttributeKey.stringKey("http.request.method")));
    }

    @Test
    void aGrpcCallIsNamedForItsFullMethodWithItsCode() {
        CallSpan.rpc(tracing, CALLER, "KafkaPixy/ConsumeNAck").closed(5, "NOT_FOUND", "long polling timeout");

        SpanData span = only();
        assertEquals("KafkaPixy/ConsumeNAck", span.getName());
        assertEquals(SpanKind.SERVER, span.getKind());
        assertEquals(CLIENT_SPAN, span.getParentSpanId());
        assertEquals("grpc", span.getAttributes().get(AttributeKey.stringKey("rpc.system")));
        assertEquals("KafkaPixy", span.getAttributes().get(AttributeKey.stringKey("rpc.service")));
        assertEquals("ConsumeNAck", span.getAttributes().get(AttributeKey.stringKey("rpc.method")));
        assertEquals(5L, span.getAttributes().get(AttributeKey.longKey("rpc.grpc.status_code")));
        assertEquals(StatusCode.UNSET, span.getStatus().getStatusCode(), "NOT_FOUND is an answer, not a fault");
    }

    @Test
    void aGrpcServerFaultIsAnErrorWithItsDescription() {
        CallSpan.rpc(tracing, CALLER, "KafkaPixy/Produce").closed(14, "UNAVAILABLE", "broker down");

        SpanData span = only();
        assertEquals(StatusCode.ERROR, span.getStatus().getStatusCode());
        assertEquals("broker down", span.getStatus().getDescription());
        assertEquals("UNAVAILABLE", span.getAttributes().get(AttributeKey.stringKey("error.type")));
    }

    @Test
    void aGrpcRefusalOfTheRequestIsNotAnError() {
        for (int code : new int[] {1, 3, 5, 6, 7, 8, 9, 10, 11, 16}) {
            CallSpan.rpc(tracing, CALLER, "KafkaPixy/M" + code).closed(code, "C" + code, null);
        }
        for (int code : new int[] {2, 4, 12, 13, 15}) {
            CallSpan.rpc(tracing, CALLER, "KafkaPixy/F" + code).closed(code, "C" + code, null);
        }

        for (SpanData span : spans.getFinishedSpanItems()) {
            boolean fault = span.getName().startsWith("KafkaPixy/F");
            assertEquals(fault ? StatusCode.ERROR : StatusCode.UNSET, span.getStatus().getStatusCode(),
                    span.getName());
        }
        assertEquals(15, spans.getFinishedSpanItems().size());
    }

    @Test
    void withTracingOffTheCallersContextIsPassedOnAndNothingIsMade() {
        CallSpan rest = CallSpan.http(Tracing.off(), CALLER, "GET", "/a", false);
        CallSpan rpc = CallSpan.rpc(Tracing.off(), CALLER, "KafkaPixy/Produce");

        rest.answered("/a", 500);
        rpc.closed(13, "INTERNAL", "x");

        assertSame(CALLER, rest.context());
        assertSame(CALLER, rpc.context());
        assertTrue(spans.getFinishedSpanItems().isEmpty());
    }

    private SpanData only() {
        assertEquals(1, spans.getFinishedSpanItems().size(), spans.getFinishedSpanItems().toString());
        return spans.getFinishedSpanItems().getFirst();
    }

    private SpanData named(String name) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).findFirst().orElseThrow();
    }
}
