package io.kafkapixy.server;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.grpc.ClientInterceptor;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.kafkapixy.server.GroupKindContractTest.Kind;
import io.kafkapixy.stream.v1.Message;
import io.kafkapixy.stream.v1.PixyStreamGrpc;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.StreamConsumer;
import io.kafkapixy.testing.TestKafka;
import io.kafkapixy.tracing.Tracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import jakarta.json.JsonObject;
import mailgun.kafkapixy.ConsNAckRq;
import mailgun.kafkapixy.ConsRs;
import mailgun.kafkapixy.KafkaPixyGrpc;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A request's trace goes on through Kafka and back out of the proxy: a message produced with a {@code traceparent}
 * carries the proxy's send span in its record (read with a plain kafka-clients consumer), and handing it to a consumer
 * and settling it make spans of that same trace, each linked to the call that did it, over REST, unary gRPC and the
 * consume stream, for classic and share groups on the real broker. Spans kept in memory.
 */
class ConsumeTracingTest {

    private static final String PRODUCER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PRODUCER_SPAN = "00f067aa0ba902b7";
    private static final String CONSUMER_TRACE = "0af7651916cd43dd8448eb211c80319c";
    private static final String CONSUMER_SPAN = "b7ad6b7169203331";

    private final TestKafka kafka = TestKafka.get();
    private final String topic = TestKafka.uniqueTopic("traced-consume");
    private final String group = TestKafka.uniqueTopic("tgroup");
    private final InMemorySpanExporter spans = InMemorySpanExporter.create();

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aRestConsumerReceivesAndAcksInTheProducersTrace(Kind kind) throws Exception {
        kafka.createTopic(topic, 2);
        readFromTheOldest(kind);
        try (RunningPixy pixy = start(kind)) {
            String send = produce(pixy);

            JsonObject m = pixy.takeMessage("/topics/" + topic + "/messages?group=" + group + "&noAck");
            SpanData receive = awaitSpan("receive " + topic);
            assertEquals(SpanKind.CONSUMER, receive.getKind());
            assertEquals(PRODUCER_TRACE, receive.getTraceId());
            assertEquals(send, receive.getParentSpanId());
            assertEquals(group, attr(receive, "messaging.consumer.group.name"));
            assertEquals(m.getJsonNumber("offset").longValue(),
                    receive.getAttributes().get(AttributeKey.longKey("messaging.kafka.offset")));
            SpanData get = linkedCall("GET /topics/{topic}/messages", receive);
            assertEquals(200L, get.getAttributes().get(AttributeKey.longKey("http.response.status_code")));

            HttpResponse<String> acked = ack(pixy, m.getInt("partition"), m.getJsonNumber("offset").longValue());
            assertEquals(200, acked.statusCode(), acked.body());
            SpanData ack = awaitSpan("ack " + topic);
            assertEquals(PRODUCER_TRACE, ack.getTraceId());
            assertEquals(send, ack.getParentSpanId());
            assertEquals("settle", attr(ack, "messaging.operation.type"));
            assertEquals(StatusCode.UNSET, ack.getStatus().getStatusCode());
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anAckThatFailsIsAnErrorOnItsSpanAndItsCallsWithTheStatusTheClientGot(Kind kind) throws Exception {
        kafka.createTopic(topic, 2);
        readFromTheOldest(kind);
        try (RunningPixy pixy = start(kind)) {
            HttpResponse<String> refused = ack(pixy, 1, 0);

            assertEquals(500, refused.statusCode(), refused.body());
            SpanData ack = awaitSpan("ack " + topic);
            assertEquals(StatusCode.ERROR, ack.getStatus().getStatusCode());
            assertEquals(object(refused.body()).getString("error"), ack.getStatus().getDescription());
            SpanData call = awaitSpan("POST /topics/{topic}/acks");
            assertEquals(call.getSpanId(), ack.getParentSpanId(), "no record held here: the call is the parent");
            assertEquals(500L, call.getAttributes().get(AttributeKey.longKey("http.response.status_code")));
            assertEquals(StatusCode.ERROR, call.getStatus().getStatusCode());
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aGrpcConsumerReceivesAndAcksInTheProducersTraceLinkedToItsOwnCalls(Kind kind) throws Exception {
        kafka.createTopic(topic, 1);
        readFromTheOldest(kind);
        try (RunningPixy pixy = start(kind)) {
            String send = produce(pixy);
            KafkaPixyGrpc.KafkaPixyBlockingStub grpc = KafkaPixyGrpc.newBlockingStub(pixy.channel())
                    .withInterceptors(traced(CONSUMER_TRACE, CONSUMER_SPAN));

            ConsRs m = take(grpc, ConsNAckRq.newBuilder().setTopic(topic).setGroup(group).setNoAck(true));
            SpanData receive = awaitSpan("receive " + topic);
            assertEquals(send, receive.getParentSpanId());
            SpanData call = linkedCall("KafkaPixy/ConsumeNAck", receive);
            assertEquals(CONSUMER_TRACE, call.getTraceId());
            assertEquals(CONSUMER_SPAN, call.getParentSpanId());
            assertEquals(0L, call.getAttributes().get(AttributeKey.longKey("rpc.grpc.status_code")));

            // the ack rides on the next request, which finds nothing more and is answered NOT_FOUND at its deadline
            StatusRuntimeException nothing = assertThrows(StatusRuntimeException.class, () -> grpc.withDeadlineAfter(
                    60, TimeUnit.SECONDS).consumeNAck(ConsNAckRq.newBuilder().setTopic(topic).setGroup(group)
                    .setAckPartition(m.getPartition()).setAckOffset(m.getOffset()).build()));
            assertEquals(Status.Code.NOT_FOUND, nothing.getStatus().getCode());
            SpanData ack = awaitSpan("ack " + topic);
            assertEquals(send, ack.getParentSpanId());
            SpanData timedOut = linkedCall("KafkaPixy/ConsumeNAck", ack);
            assertEquals(5L, timedOut.getAttributes().get(AttributeKey.longKey("rpc.grpc.status_code")));
            assertEquals(StatusCode.UNSET, timedOut.getStatus().getStatusCode(), "NOT_FOUND is an answer, not a fault");
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aStreamsMessagesAreReceivedAndAckedInTheProducersTrace(Kind kind) throws Exception {
        kafka.createTopic(topic, 1);
        readFromTheOldest(kind);
        try (RunningPixy pixy = start(kind)) {
            String send = produce(pixy);
            StreamConsumer stream = StreamConsumer.open(pixy.channel(), group, List.of(topic), 10);

            Message m = stream.take(Duration.ofSeconds(60));
            assertEquals("traced", m.getMessage().toStringUtf8());
            SpanData receive = awaitSpan("receive " + topic);
            assertEquals(PRODUCER_TRACE, receive.getTraceId());
            assertEquals(send, receive.getParentSpanId());
            stream.ack(m);
            SpanData ack = awaitSpan("ack " + topic);
            assertEquals(send, ack.getParentSpanId());
            assertEquals(StatusCode.UNSET, ack.getStatus().getStatusCode());
            stream.halfClose();
            assertEquals(Status.Code.OK, stream.awaitEnd(Duration.ofSeconds(60)).getCode());

            SpanData call = linkedCall(PixyStreamGrpc.getConsumeMethod().getFullMethodName(), receive);
            assertEquals(call.getSpanId(), ack.getLinks().getFirst().getSpanContext().getSpanId());
        }
    }

    /** Produces "traced" over REST in trace {@link #PRODUCER_TRACE}; the send span's id, as its record says. */
    private String produce(RunningPixy pixy) {
        HttpResponse<String> rs = pixy.send(HttpRequest.newBuilder(pixy.uri("/topics/" + topic + "/messages?sync"))
                .header("traceparent", "00-" + PRODUCER_TRACE + "-" + PRODUCER_SPAN + "-01")
                .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("traced")));
        assertEquals(200, rs.statusCode(), rs.body());
        JsonObject at = object(rs.body());
        Header h = kafka.read(topic, at.getInt("partition"), at.getJsonNumber("offset").longValue()).headers()
                .lastHeader("traceparent");
        String traceparent = new String(h.value(), StandardCharsets.UTF_8);
        String[] parts = traceparent.split("-");
        assertEquals(PRODUCER_TRACE, parts[1], traceparent);
        assertEquals(awaitSpan("send " + topic).getSpanId(), parts[2], "the record carries the proxy's send span");
        return parts[2];
    }

    private static ConsRs take(KafkaPixyGrpc.KafkaPixyBlockingStub grpc, ConsNAckRq.Builder rq) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                return grpc.withDeadlineAfter(60, TimeUnit.SECONDS).consumeNAck(rq.build());
            } catch (StatusRuntimeException e) {
                if (e.getStatus().getCode() != Status.Code.NOT_FOUND || System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    private HttpResponse<String> ack(RunningPixy pixy, int partition, long offset) {
        return pixy.post("/topics/" + topic + "/acks?group=" + group + "&partition=" + partition + "&offset="
                + offset, "text/plain", "");
    }

    private SpanData awaitSpan(String name) {
        TestKafka.Waits.until(Duration.ofSeconds(30), "span " + name, () -> !named(name).isEmpty());
        return named(name).getFirst();
    }

    /**
     * The span named {@code name} that {@code span} links to: its call (a take may have been answered "long polling
     * timeout" before the one that got the message, so the call is not the first of its name).
     */
    private SpanData linkedCall(String name, SpanData span) {
        assertEquals(1, span.getLinks().size(), span.toString());
        String linked = span.getLinks().getFirst().getSpanContext().getSpanId();
        TestKafka.Waits.until(Duration.ofSeconds(30), "the span of the call " + name,
                () -> named(name).stream().anyMatch(s -> s.getSpanId().equals(linked)));
        return named(name).stream().filter(s -> s.getSpanId().equals(linked)).findFirst().orElseThrow();
    }

    private List<SpanData> named(String name) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
    }

    private static String attr(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    private static ClientInterceptor traced(String trace, String span) {
        Metadata m = new Metadata();
        m.put(Metadata.Key.of("traceparent", Metadata.ASCII_STRING_MARSHALLER), "00-" + trace + "-" + span + "-01");
        return MetadataUtils.newAttachHeadersInterceptor(m);
    }

    private RunningPixy start(Kind kind) {
        Tracing tracing = Tracing.with(OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(spans)).build()).build());
        return RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "traced-" + kind.name().toLowerCase(),
                kind.settings().longPollingTimeout(Duration.ofSeconds(3))), tracing);
    }

    private void readFromTheOldest(Kind kind) throws Exception {
        kind.readFromTheOldest(kafka, group, topic);
    }
}
