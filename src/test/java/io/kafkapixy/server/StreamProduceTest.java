package io.kafkapixy.server;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.kafkapixy.stream.v1.Header;
import io.kafkapixy.stream.v1.PixyStreamGrpc;
import io.kafkapixy.stream.v1.ProduceRequest;
import io.kafkapixy.stream.v1.ProduceResponse;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import mailgun.kafkapixy.ProdRq;
import mailgun.kafkapixy.ProdRs;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The streaming {@code Produce} of {@code kafkapixy_stream.proto}, against a real broker. */
class StreamProduceTest {

    private static TestKafka kafka;
    private static RunningPixy pixy;
    private static String topic4;

    @BeforeAll
    static void start() {
        kafka = TestKafka.get();
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap()));
        topic4 = kafka.createTopic(TestKafka.uniqueTopic("stream4"), 4);
    }

    @AfterAll
    static void stop() {
        pixy.close();
    }

    /** A client's side of one stream: what it sends, and the answers and the end it gets. */
    static final class Stream implements StreamObserver<ProduceResponse> {
        final Map<Long, ProduceResponse> answers = new ConcurrentHashMap<>();
        final List<Long> order = java.util.Collections.synchronizedList(new ArrayList<>());
        final CompletableFuture<Void> end = new CompletableFuture<>();
        final StreamObserver<ProduceRequest> requests;

        Stream(RunningPixy pixy) {
            requests = PixyStreamGrpc.newStub(pixy.channel()).withDeadlineAfter(60, TimeUnit.SECONDS).produce(this);
        }

        @Override
        public void onNext(ProduceResponse rs) {
            assertEquals(null, answers.put(rs.getId(), rs), "one answer per id");
            order.add(rs.getId());
        }

        @Override
        public void onError(Throwable t) {
            end.completeExceptionally(t);
        }

        @Override
        public void onCompleted() {
            end.complete(null);
        }

        void awaitEnd() throws Exception {
            end.get(60, TimeUnit.SECONDS);
        }
    }

    private static ProduceRequest.Builder message(long id, String key, String value) {
        return ProduceRequest.newBuilder().setId(id).setTopic(topic4).setKeyValue(bytes(key)).setMessage(bytes(value));
    }

    @Test
    void everyMessageIsAnsweredWithItsIdAndWhereKafkaStoredIt() throws Exception {
        Stream stream = new Stream(pixy);
        int n = 300;
        for (long id = 0; id < n; id++) {
            stream.requests.onNext(message(id, "key-" + id, "value-" + id)
                    .addHeaders(Header.newBuilder().setKey("h").setValue(bytes("v" + id))).build());
        }
        stream.requests.onCompleted();
        stream.awaitEnd();

        assertEquals(n, stream.answers.size());
        for (long id = 0; id < n; id += 37) {
            ProduceResponse rs = stream.answers.get(id);
            assertEquals(0, rs.getCode(), rs.getError());
            ConsumerRecord<byte[], byte[]> record = kafka.read(topic4, rs.getPartition(), rs.getOffset());
            assertArrayEquals(("key-" + id).getBytes(StandardCharsets.UTF_8), record.key());
            assertArrayEquals(("value-" + id).getBytes(StandardCharsets.UTF_8), record.value());
            assertArrayEquals(("v" + id).getBytes(StandardCharsets.UTF_8), record.headers().lastHeader("h").value());
        }
    }

    /**
     * The gauge is the process's (one registry per JVM): this class runs one server, so that no other server's stop
     * takes the gauge away mid-test.
     */
    @Test
    void openStreamsAreCountedUntilTheyEnd() throws Exception {
        double before = openStreams();
        Stream stream = new Stream(pixy);
        stream.requests.onNext(message(1, "k", "x").build());
        TestKafka.Waits.until(java.time.Duration.ofSeconds(30), "the answer", () -> stream.answers.size() == 1);

        assertEquals(before + 1, openStreams());
        stream.requests.onCompleted();
        stream.awaitEnd();
        TestKafka.Waits.until(java.time.Duration.ofSeconds(30), "the stream counted as ended",
                () -> openStreams() == before);
    }

    private static double openStreams() {
        return io.kafkapixy.testing.Scrape.parse(pixy.get("/metrics").body())
                .value("kafkapixy_stream_open", "method", "Produce");
    }

    @Test
    void keysLandOnTheSamePartitionsAsWithTheUnaryProduce() throws Exception {
        Stream stream = new Stream(pixy);
        List<String> keys = List.of("foo", "bar", "baz", "qux", "");
        for (int i = 0; i < keys.size(); i++) {
            stream.requests.onNext(message(i, keys.get(i), "x").build());
        }
        stream.requests.onCompleted();
        stream.awaitEnd();

        for (int i = 0; i < keys.size(); i++) {
            ProdRs unary = pixy.grpc().produce(ProdRq.newBuilder().setTopic(topic4).setKeyValue(bytes(keys.get(i)))
                    .setMessage(bytes("x")).build());
            assertEquals(unary.getPartition(), stream.answers.get((long) i).getPartition(), "key " + keys.get(i));
        }
    }

    @Test
    void aBadMessageIsAnsweredWithTheUnaryCallsStatusAndTheStreamGoesOn() throws Exception {
        byte[] tooLarge = new byte[1_000_001];
        Stream stream = new Stream(pixy);
        stream.requests.onNext(ProduceRequest.newBuilder().setId(1).setTopic("bad topic!")
                .setMessage(bytes("x")).build());
        stream.requests.onNext(ProduceRequest.newBuilder().setId(2).setTopic(topic4)
                .setMessage(ByteString.copyFrom(tooLarge)).build());
        stream.requests.onNext(message(3, "k", "fine").build());
        stream.requests.onCompleted();
        stream.awaitEnd();

        assertSameAsUnary(stream.answers.get(1L), ProdRq.newBuilder().setTopic("bad topic!")
                .setMessage(bytes("x")).build());
        assertSameAsUnary(stream.answers.get(2L), ProdRq.newBuilder().setTopic(topic4)
                .setMessage(ByteString.copyFrom(tooLarge)).build());
        assertEquals(0, stream.answers.get(3L).getCode());
    }

    private static void assertSameAsUnary(ProduceResponse streamed, ProdRq unary) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> pixy.grpc().produce(unary));
        assertTrue(streamed.getCode() != 0, "refused");
        assertEquals(e.getStatus().getCode().value(), streamed.getCode());
        assertEquals(e.getStatus().getDescription(), streamed.getError());
    }

    @Test
    void anUnknownClusterEndsTheStreamWithTheUnaryCallsStatus() {
        Stream stream = new Stream(pixy);
        stream.requests.onNext(message(1, "k", "x").setCluster("nope").build());

        Exception e = assertThrows(Exception.class, stream::awaitEnd);
        Status status = Status.fromThrowable(e);
        StatusRuntimeException unary = assertThrows(StatusRuntimeException.class, () -> pixy.grpc().produce(
                ProdRq.newBuilder().setCluster("nope").setTopic(topic4).setMessage(bytes("x")).build()));
        assertEquals(unary.getStatus().getCode(), status.getCode());
        assertEquals(unary.getStatus().getDescription(), status.getDescription());
    }

    private static ByteString bytes(String s) {
        return ByteString.copyFromUtf8(s);
    }

}
