package io.kafkapixy.server;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.ByteString;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.kafkapixy.stream.v1.PixyStreamGrpc;
import io.kafkapixy.stream.v1.ProduceRequest;
import io.kafkapixy.stream.v1.ProduceResponse;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonObject;
import mailgun.kafkapixy.KafkaPixyGrpc;
import mailgun.kafkapixy.ProdRq;
import mailgun.kafkapixy.ProdRs;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A produce request's W3C trace context reaches the record, so any Kafka consumer continues the trace: REST's
 * {@code traceparent} and {@code tracestate} headers, gRPC's metadata of the same names on unary {@code Produce} and
 * the produce stream. Read back with a plain kafka-clients consumer. Tracing is off here (no {@code OTEL_*}
 * settings), so the record carries the request's context as it came; a client's own {@code X-Kafka-traceparent}
 * wins, and a malformed {@code traceparent} is ignored.
 */
class TraceContextTest {

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final String TRACESTATE = "vendor=x";
    private static TestKafka kafka;
    private static RunningPixy pixy;
    private static String topic;

    @BeforeAll
    static void start() {
        kafka = TestKafka.get();
        topic = kafka.createTopic(TestKafka.uniqueTopic("traced"), 1);
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap()));
    }

    @AfterAll
    static void stop() {
        if (pixy != null) {
            pixy.close();
        }
    }

    @Test
    void aRestProducesRecordCarriesTheRequestsTraceContext() {
        ConsumerRecord<byte[], byte[]> record = restProduce(HttpRequest.newBuilder()
                .header("traceparent", TRACEPARENT).header("tracestate", TRACESTATE));

        assertEquals(TRACEPARENT, header(record, "traceparent"));
        assertEquals(TRACESTATE, header(record, "tracestate"));
    }

    @Test
    void theClientsOwnRecordHeaderWins() {
        String own = "00-4bf92f3577b34da6a3ce929d0e0e4736-1111111111111111-01";
        ConsumerRecord<byte[], byte[]> record = restProduce(HttpRequest.newBuilder()
                .header("traceparent", TRACEPARENT).header("X-Kafka-traceparent",
                        Base64.getEncoder().encodeToString(own.getBytes(StandardCharsets.UTF_8))));

        // REST writes an X-Kafka-* header's name as the original does (Go's canonical form)
        assertEquals(own, header(record, "Traceparent"));
        assertNull(record.headers().lastHeader("traceparent"), "nothing added beside the client's own");
    }

    @Test
    void aMalformedTraceparentIsIgnored() {
        ConsumerRecord<byte[], byte[]> record = restProduce(HttpRequest.newBuilder()
                .header("traceparent", "00-not-a-trace-01"));

        assertNull(record.headers().lastHeader("traceparent"));
    }

    @Test
    void aUnaryGrpcProducesRecordCarriesTheCallsTraceContext() {
        ProdRs rs = KafkaPixyGrpc.newBlockingStub(pixy.channel()).withInterceptors(traced())
                .withDeadlineAfter(60, TimeUnit.SECONDS).produce(ProdRq.newBuilder().setTopic(topic)
                        .setKeyUndefined(true).setMessage(ByteString.copyFromUtf8("unary")).build());

        ConsumerRecord<byte[], byte[]> record = kafka.read(topic, rs.getPartition(), rs.getOffset());
        assertEquals(TRACEPARENT, header(record, "traceparent"));
        assertEquals(TRACESTATE, header(record, "tracestate"));
    }

    @Test
    void aProduceStreamsRecordsCarryTheStreamsTraceContext() throws Exception {
        CompletableFuture<ProduceResponse> answer = new CompletableFuture<>();
        StreamObserver<ProduceRequest> requests = PixyStreamGrpc.newStub(pixy.channel()).withInterceptors(traced())
                .withDeadlineAfter(60, TimeUnit.SECONDS).produce(new StreamObserver<>() {
                    @Override
                    public void onNext(ProduceResponse rs) {
                        answer.complete(rs);
                    }

                    @Override
                    public void onError(Throwable t) {
                        answer.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                    }
                });
        requests.onNext(ProduceRequest.newBuilder().setId(1).setTopic(topic).setKeyUndefined(true)
                .setMessage(ByteString.copyFromUtf8("streamed")).build());
        ProduceResponse rs = answer.get(60, TimeUnit.SECONDS);
        requests.onCompleted();

        assertEquals(0, rs.getCode(), rs.getError());
        assertEquals(TRACEPARENT, header(kafka.read(topic, rs.getPartition(), rs.getOffset()), "traceparent"));
    }

    private static io.grpc.ClientInterceptor traced() {
        Metadata m = new Metadata();
        m.put(Metadata.Key.of("traceparent", Metadata.ASCII_STRING_MARSHALLER), TRACEPARENT);
        m.put(Metadata.Key.of("tracestate", Metadata.ASCII_STRING_MARSHALLER), TRACESTATE);
        return MetadataUtils.newAttachHeadersInterceptor(m);
    }

    private static ConsumerRecord<byte[], byte[]> restProduce(HttpRequest.Builder rq) {
        HttpResponse<String> rs = pixy.send(rq.uri(pixy.uri("/topics/" + topic + "/messages?sync"))
                .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("traced")));
        assertEquals(200, rs.statusCode(), rs.body());
        JsonObject at = object(rs.body());
        return kafka.read(topic, at.getInt("partition"), at.getJsonNumber("offset").longValue());
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String key) {
        Header h = record.headers().lastHeader(key);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
