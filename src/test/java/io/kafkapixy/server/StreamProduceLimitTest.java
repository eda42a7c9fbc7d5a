package io.kafkapixy.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.ByteString;
import io.grpc.stub.StreamObserver;
import io.kafkapixy.config.LimitsConfig;
import io.kafkapixy.stream.v1.PixyStreamGrpc;
import io.kafkapixy.stream.v1.ProduceRequest;
import io.kafkapixy.stream.v1.ProduceResponse;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code limits.max_unanswered_produces_per_stream}: a streaming Produce takes no more messages ahead of answers. */
class StreamProduceLimitTest {

    @Test
    void withOneUnansweredMessageAllowedEachIsTakenOnlyAfterThePreviousIsAnswered() throws Exception {
        TestKafka kafka = TestKafka.get();
        String topic = kafka.createTopic(TestKafka.uniqueTopic("streamlimit"), 4);
        LimitsConfig d = LimitsConfig.DEFAULT;
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_stream1",
                new ConsumerSettingsBuilder()).withLimits(new LimitsConfig(d.grpcMaxRequestBytes(),
                d.maxHeaderBytes(), d.maxParkedRequests(), d.maxRequestLineBytes(), 1)))) {
            List<Long> answered = java.util.Collections.synchronizedList(new ArrayList<>());
            List<Integer> codes = java.util.Collections.synchronizedList(new ArrayList<>());
            CompletableFuture<Void> end = new CompletableFuture<>();
            StreamObserver<ProduceRequest> requests = PixyStreamGrpc.newStub(pixy.channel())
                    .withDeadlineAfter(60, TimeUnit.SECONDS).produce(new StreamObserver<>() {
                        @Override
                        public void onNext(ProduceResponse rs) {
                            answered.add(rs.getId());
                            codes.add(rs.getCode());
                        }

                        @Override
                        public void onError(Throwable t) {
                            end.completeExceptionally(t);
                        }

                        @Override
                        public void onCompleted() {
                            end.complete(null);
                        }
                    });
            List<Long> sent = new ArrayList<>();
            for (long id = 0; id < 40; id++) {
                // different keys, different partitions: with more in flight, answers could pass each other
                requests.onNext(ProduceRequest.newBuilder().setId(id).setTopic(topic)
                        .setKeyValue(ByteString.copyFromUtf8("key-" + id)).setMessage(ByteString.copyFromUtf8("v"))
                        .build());
                sent.add(id);
            }
            requests.onCompleted();
            end.get(60, TimeUnit.SECONDS);

            assertEquals(sent, answered);
            assertTrue(codes.stream().allMatch(c -> c == 0), codes.toString());
        }
    }
}
