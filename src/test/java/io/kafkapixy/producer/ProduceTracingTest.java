package io.kafkapixy.producer;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

import io.kafkapixy.config.ProducerConfig;
import io.kafkapixy.tracing.Tracing;
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
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A produced message continues its request's trace: its span is a child of the request's context, after
 * OpenTelemetry's messaging conventions, and its record carries the span's context in a {@code traceparent} header
 * (and {@code tracestate}), unless the client set that header itself. With tracing off the request's context is
 * passed on as it came. On Kafka's MockProducer, spans kept in memory.
 */
class ProduceTracingTest {

    private static final Cluster CLUSTER = new Cluster("c", List.of(new org.apache.kafka.common.Node(1, "localhost",
            9092)), PartitionChooserTest.partitions(4), Set.of(), Set.of());
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CLIENT_SPAN = "00f067aa0ba902b7";
    /** The request's context, as a client sent it in {@code traceparent} and {@code tracestate}. */
    private static final Context REQUEST = Context.root().with(Span.wrap(SpanContext.createFromRemoteParent(TRACE_ID,
            CLIENT_SPAN, TraceFlags.getSampled(), TraceState.builder().put("vendor", "x").build())));

    private final MockProducer<byte[], byte[]> mock =
            new MockProducer<>(CLUSTER, true, null, new ByteArraySerializer(), new ByteArraySerializer());
    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final Tracing tracing = Tracing.with(OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider
            .builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build()).build());

    @Test
    void theRecordCarriesTheProxysProduceSpanAChildOfTheRequestsContext() {
        PixyProducer producer = producer(tracing);

        ProduceResult result = producer.produceSync(request(List.of(), REQUEST));

        SpanData span = spans.getFinishedSpanItems().getFirst();
        assertEquals("send t", span.getName());
        assertEquals(SpanKind.PRODUCER, span.getKind());
        assertEquals(TRACE_ID, span.getTraceId());
        assertEquals(CLIENT_SPAN, span.getParentSpanId());
        assertEquals("kafka", span.getAttributes().get(AttributeKey.stringKey("messaging.system")));
        assertEquals("t", span.getAttributes().get(AttributeKey.stringKey("messaging.destination.name")));
        assertEquals("send", span.getAttributes().get(AttributeKey.stringKey("messaging.operation.type")));
        assertEquals(Integer.toString(result.partition()),
                span.getAttributes().get(AttributeKey.stringKey("messaging.destination.partition.id")));
        assertEquals(result.offset(), span.getAttributes().get(AttributeKey.longKey("messaging.kafka.offset")));
        assertEquals("00-" + TRACE_ID + "-" + span.getSpanId() + "-01", header(sent(), "traceparent"));
        assertEquals("vendor=x", header(sent(), "tracestate"));
    }

    @Test
    void aTraceparentHeaderTheClientSetItselfWins() {
        String own = "00-" + TRACE_ID + "-1111111111111111-01";

        producer(tracing).produceSync(request(List.of(new RecordHeader("traceparent", bytes(own))), REQUEST));

        assertEquals(own, header(sent(), "traceparent"));
        assertEquals(1, sent().headers().toArray().length, "nothing added beside the client's own");
        assertEquals(1, spans.getFinishedSpanItems().size(), "the produce is still traced");
    }

    @Test
    void withTracingOffTheRequestsContextIsPassedOnAsItCame() {
        producer(Tracing.off()).produceSync(request(List.of(), REQUEST));

        assertEquals("00-" + TRACE_ID + "-" + CLIENT_SPAN + "-01", header(sent(), "traceparent"));
        assertTrue(spans.getFinishedSpanItems().isEmpty());
    }

    @Test
    void aRequestWithoutTraceContextIsProducedAsItCameWithTracingOff() {
        producer(Tracing.off()).produceSync(request(List.of(new RecordHeader("Foo", bytes("x"))), Context.root()));

        assertEquals(1, sent().headers().toArray().length);
        assertNull(sent().headers().lastHeader("traceparent"));
    }

    @Test
    void aMessageKafkaRefusesEndsItsSpanWithTheError() {
        MockProducer<byte[], byte[]> refusing =
                new MockProducer<>(CLUSTER, false, null, new ByteArraySerializer(), new ByteArraySerializer());
        PixyProducer producer = new PixyProducer(refusing, topic -> PartitionChooserTest.partitions(4),
                ProducerConfig.DEFAULT, ProducerMetrics.NONE, tracing);
        var answer = producer.produceLater(request(List.of(), REQUEST));

        refusing.errorNext(new org.apache.kafka.common.errors.RecordTooLargeException("too large"));

        assertThrows(Exception.class, answer::join);
        SpanData span = spans.getFinishedSpanItems().getFirst();
        assertEquals(StatusCode.ERROR, span.getStatus().getStatusCode());
        assertEquals("too large", span.getStatus().getDescription());
    }

    private PixyProducer producer(Tracing t) {
        return new PixyProducer(mock, topic -> PartitionChooserTest.partitions(4), ProducerConfig.DEFAULT,
                ProducerMetrics.NONE, t);
    }

    private static ProduceRequest request(List<Header> headers, Context trace) {
        return new ProduceRequest("t", MessageKey.of(bytes("k")), bytes("v"), headers, trace);
    }

    private ProducerRecord<byte[], byte[]> sent() {
        return mock.history().getFirst();
    }

    private static String header(ProducerRecord<byte[], byte[]> r, String key) {
        Header h = r.headers().lastHeader(key);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
