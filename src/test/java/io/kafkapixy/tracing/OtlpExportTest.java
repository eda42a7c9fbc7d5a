package io.kafkapixy.tracing;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Spans reach an operator's collector over OTLP/HTTP, configured the OpenTelemetry way ({@code OTEL_*} settings):
 * a REST produce's server span and its message's span arrive at a real HTTP endpoint (a small receiver that decodes
 * the OTLP protobuf) with the request's trace id, the client's span as the call's parent and the call's as the
 * message's, the HTTP and messaging attributes and the service name; and a
 * collector that cannot be reached changes nothing for the client.
 */
class OtlpExportTest {

    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CLIENT_SPAN = "00f067aa0ba902b7";

    @Test
    void aProducedMessagesSpanReachesTheCollector() throws Exception {
        TestKafka kafka = TestKafka.get();
        String topic = kafka.createTopic(TestKafka.uniqueTopic("exported"), 1);
        try (OtlpReceiver collector = new OtlpReceiver();
             RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap()), Tracing.configure(Map.of(
                     "OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint(), "OTEL_SERVICE_NAME", "pixy-under-test",
                     "OTEL_BSP_SCHEDULE_DELAY", "100"), new Properties()))) {
            assertEquals(200, produce(pixy, topic).statusCode());

            String route = "POST /topics/{topic}/messages";
            TestKafka.Waits.until(Duration.ofSeconds(30), "the spans at the collector",
                    () -> span(collector, "send " + topic).isPresent() && span(collector, route).isPresent());
            OtlpReceiver.ReceivedSpan call = span(collector, route).orElseThrow();
            assertEquals(TRACE_ID, call.traceId());
            assertEquals(CLIENT_SPAN, call.parentSpanId());
            assertEquals(2, call.kind(), "SPAN_KIND_SERVER");
            assertEquals("200", call.attributes().get("http.response.status_code"));
            assertEquals("/topics/{topic}/messages", call.attributes().get("http.route"));
            OtlpReceiver.ReceivedSpan span = span(collector, "send " + topic).orElseThrow();
            assertEquals(TRACE_ID, span.traceId());
            assertEquals(call.spanId(), span.parentSpanId());
            assertEquals(4, span.kind(), "SPAN_KIND_PRODUCER");
            assertEquals("kafka", span.attributes().get("messaging.system"));
            assertEquals(topic, span.attributes().get("messaging.destination.name"));
            assertEquals("0", span.attributes().get("messaging.kafka.offset"));
            assertEquals("pixy-under-test", span.resource().get("service.name"));
        }
    }

    @Test
    void aCollectorThatCannotBeReachedChangesNothingForTheClient() throws Exception {
        TestKafka kafka = TestKafka.get();
        String topic = kafka.createTopic(TestKafka.uniqueTopic("unexported"), 1);
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap()), Tracing.configure(Map.of(
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + closed, "OTEL_BSP_SCHEDULE_DELAY", "100"),
                new Properties()))) {
            for (int i = 0; i < 20; i++) {
                HttpResponse<String> rs = produce(pixy, topic);
                assertEquals(200, rs.statusCode(), rs.body());
            }
            assertEquals(20L, kafka.endOffsets(topic, 1).get(0), "every message produced");
        }
    }

    private static HttpResponse<String> produce(RunningPixy pixy, String topic) {
        return pixy.send(HttpRequest.newBuilder(pixy.uri("/topics/" + topic + "/messages?sync"))
                .header("Content-Type", "text/plain").header("traceparent", "00-" + TRACE_ID + "-" + CLIENT_SPAN
                                                                           + "-01")
                .POST(HttpRequest.BodyPublishers.ofString("exported")));
    }

    private static Optional<OtlpReceiver.ReceivedSpan> span(OtlpReceiver collector, String name) {
        return collector.spans.stream().filter(s -> s.name().equals(name)).findFirst();
    }
}
