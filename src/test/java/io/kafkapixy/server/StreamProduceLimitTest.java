package io.kafkapixy.server;

import java.util.ArrayList;
import java.util.List;

import com.google.protobuf.ByteString;
import io.kafkapixy.config.LimitsConfig;
import io.kafkapixy.stream.v1.ProduceRequest;
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
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_stream1",
                new ConsumerSettingsBuilder()).withLimits(
                LimitsConfig.DEFAULT.with(LimitsConfig.MAX_UNANSWERED_PRODUCES_PER_STREAM, 1)))) {
            StreamProduceTest.Stream stream = new StreamProduceTest.Stream(pixy);
            List<Long> sent = new ArrayList<>();
            for (long id = 0; id < 40; id++) {
                // different keys, different partitions: with more in flight, answers could pass each other
                stream.requests.onNext(ProduceRequest.newBuilder().setId(id).setTopic(topic)
                        .setKeyValue(ByteString.copyFromUtf8("key-" + id)).setMessage(ByteString.copyFromUtf8("v"))
                        .build());
                sent.add(id);
            }
            stream.requests.onCompleted();
            stream.awaitEnd();

            assertEquals(sent, stream.order);
            assertTrue(stream.answers.values().stream().allMatch(rs -> rs.getCode() == 0));
        }
    }
}
