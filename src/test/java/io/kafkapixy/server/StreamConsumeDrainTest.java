package io.kafkapixy.server;

import java.time.Duration;
import java.util.List;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.kafkapixy.config.LimitsConfig;
import io.kafkapixy.stream.v1.ConsumeRequest;
import io.kafkapixy.stream.v1.Message;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.Scrape;
import io.kafkapixy.testing.StreamConsumer;
import io.kafkapixy.testing.TestKafka;
import io.kafkapixy.testing.TestKafka.Waits;
import mailgun.kafkapixy.ConsNAckRq;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Streaming Consume at the instance's edges: the limit on open streams, a client that stops reading, graceful shutdown. */
@Timeout(180)
class StreamConsumeDrainTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(3);

    private static RunningPixy start(TestKafka kafka, String clientId, int maxStreams) {
        return RunningPixy.start(RunningPixy.config(kafka.bootstrap(), clientId, new ConsumerSettingsBuilder()
                        .ackTimeout(Duration.ofSeconds(60)).shutdownTimeout(SHUTDOWN_TIMEOUT))
                .withLimits(LimitsConfig.DEFAULT.with(LimitsConfig.MAX_STREAMS, maxStreams)));
    }

    private static String topicWithMessages(TestKafka kafka, String group, int count) {
        String topic = kafka.createTopic(TestKafka.uniqueTopic("streamd"), 1);
        for (int i = 0; i < count; i++) {
            kafka.produce(topic, 0, "k" + i, "v" + i);
        }
        kafka.commit(group, topic, 0, 0, "");
        return topic;
    }

    @Test
    void aStreamPastMaxStreamsIsRefusedUntilAnotherEnds() throws Exception {
        TestKafka kafka = TestKafka.get();
        String group = "g-max";
        String topic = topicWithMessages(kafka, group, 2);
        try (RunningPixy pixy = start(kafka, "kp_streammax", 2)) {
            StreamConsumer a = StreamConsumer.open(pixy.channel(), group, List.of(topic), 1);
            StreamConsumer b = StreamConsumer.open(pixy.channel(), group, List.of(topic), 1);
            // a message each: both are subscribed
            Message heldByA = a.take(WAIT);
            b.take(WAIT);

            StreamConsumer c = StreamConsumer.open(pixy.channel(), group, List.of(topic), 1);
            Status refused = c.awaitEnd(WAIT);
            assertEquals(Status.Code.RESOURCE_EXHAUSTED, refused.getCode());
            assertEquals("Too many streams: at most 2 may be open at once (limits.max_streams)",
                    refused.getDescription());

            a.halfClose();
            assertEquals(Status.Code.OK, a.awaitEnd(WAIT).getCode());
            StreamConsumer d = StreamConsumer.open(pixy.channel(), group, List.of(topic), 1);
            Message m = d.take(WAIT);
            assertEquals(heldByA.getOffset(), m.getOffset(), "what a held, given back when it ended");
            d.cancel();
            b.cancel();
        }
    }

    @Test
    void onShutdownAStreamGetsNothingNewItsAcksAreTakenThenItEndsUnavailable() throws Exception {
        TestKafka kafka = TestKafka.get();
        String group = "g-drain";
        String topic = topicWithMessages(kafka, group, 10);
        RunningPixy pixy = start(kafka, "kp_streamdrain", 10);
        StreamConsumer stream = StreamConsumer.open(pixy.channel(), group, List.of(topic), 2);
        List<Message> held = stream.take(2, WAIT);

        // the application alone: the test's channel stays open to see the stream end
        Thread closing = Thread.ofVirtual().start(() -> pixy.app().close());
        try {
            // once a unary consume is refused, the members are shutting down (another group: nothing taken or acked)
            Waits.until(WAIT, "consumers shutting down", () -> {
                try {
                    pixy.grpc().consumeNAck(ConsNAckRq.newBuilder().setGroup(group + "-probe").setTopic(topic)
                            .setNoAck(true).build());
                    return false;
                } catch (StatusRuntimeException e) {
                    return e.getStatus().getCode() == Status.Code.UNAVAILABLE;
                }
            });
            long drainStarted = System.nanoTime();
            stream.credit(5);
            stream.ack(held.getFirst());

            Status end = stream.awaitEnd(WAIT);
            Duration drained = Duration.ofNanos(System.nanoTime() - drainStarted);
            assertEquals(Status.Code.UNAVAILABLE, end.getCode());
            assertEquals("service is shutting down", end.getDescription());
            assertEquals(0, stream.waiting(), "no message after the drain began");
            assertTrue(drained.compareTo(SHUTDOWN_TIMEOUT.plus(WAIT)) < 0, "ended within the drain: " + drained);
            closing.join(WAIT);
            assertEquals(1L, kafka.committed(group, topic).get(0).offset(), "the ack taken while draining");
        } finally {
            closing.join();
            pixy.channel().shutdownNow();
        }
    }

    @Test
    void aClientThatStopsReadingIsSentNoMoreThanAFewMebibytes() throws Exception {
        String group = "g-slowreader";
        TestKafka kafka = TestKafka.get();
        String topic = kafka.createTopic(TestKafka.uniqueTopic("streamd"), 1);
        String value = "v".repeat(50 * 1024);
        int count = 300;
        for (int i = 0; i < count; i++) {
            kafka.produce(topic, 0, "k" + i, value);
        }
        kafka.commit(group, topic, 0, 0, "");
        // max_pending_messages (300) lets all 300 out unacked: only the client's reading holds them back
        try (RunningPixy pixy = start(kafka, "kp_streamslow", 10)) {
            java.util.function.Supplier<Double> sentTotal = () -> Scrape.parse(pixy.get("/metrics").body())
                    .value("kafkapixy_stream_messages_total");
            double before = sentTotal.get();
            java.util.concurrent.atomic.AtomicInteger got = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.CompletableFuture<Void> ended = new java.util.concurrent.CompletableFuture<>();
            @SuppressWarnings("unchecked")
            io.grpc.stub.ClientCallStreamObserver<ConsumeRequest>[] requests = new io.grpc.stub.ClientCallStreamObserver[1];
            io.kafkapixy.stream.v1.PixyStreamGrpc.newStub(pixy.channel()).consume(
                    new io.grpc.stub.ClientResponseObserver<ConsumeRequest, io.kafkapixy.stream.v1.ConsumeResponse>() {
                        @Override
                        public void beforeStart(io.grpc.stub.ClientCallStreamObserver<ConsumeRequest> r) {
                            // reads one response, then nothing until told
                            r.disableAutoRequestWithInitial(1);
                            requests[0] = r;
                        }

                        @Override
                        public void onNext(io.kafkapixy.stream.v1.ConsumeResponse rs) {
                            got.addAndGet(rs.getMessagesCount());
                        }

                        @Override
                        public void onError(Throwable t) {
                            ended.complete(null);
                        }

                        @Override
                        public void onCompleted() {
                            ended.complete(null);
                        }
                    });
            requests[0].onNext(ConsumeRequest.newBuilder().setGroup(group).addTopics(topic).setCredits(4000).build());

            Waits.until(WAIT, "the first response", () -> got.get() > 0);
            // the server sends while the connection's window and its 2 MiB threshold take it, then stops
            double[] last = {-1};
            Waits.until(WAIT, "sending stopped", () -> {
                double sent = sentTotal.get() - before;
                boolean stable = sent == last[0];
                last[0] = sent;
                return stable;
            });
            assertTrue(last[0] < count / 2, "stopped after " + last[0] + " of " + count + " 50 KiB messages");

            requests[0].request(Integer.MAX_VALUE);
            try {
                Waits.until(WAIT, "everything once the client reads", () -> got.get() == count);
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + ": got " + got.get() + ", sent "
                        + (sentTotal.get() - before) + ", stopped at " + last[0], e);
        }
        requests[0].cancel("done", null);
        }
    }
}
