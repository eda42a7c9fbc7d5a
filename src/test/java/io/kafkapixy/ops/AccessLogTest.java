package io.kafkapixy.ops;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import com.google.protobuf.ByteString;
import io.kafkapixy.server.PixyServer;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import mailgun.kafkapixy.ProdRq;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@code access_log}: one line per REST and per gRPC request on the {@code io.kafkapixy.access} logger. */
class AccessLogTest {

    private final TestKafka kafka = TestKafka.get();
    private final String topic = TestKafka.uniqueTopic("access");
    private final List<String> lines = new ArrayList<>();
    private final Logger logger = Logger.getLogger(PixyServer.ACCESS_LOGGER);
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            synchronized (lines) {
                lines.add(new java.util.logging.SimpleFormatter().formatMessage(record));
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        capture.setLevel(Level.ALL);
        logger.addHandler(capture);
    }

    @AfterEach
    void stopListening() {
        logger.removeHandler(capture);
    }

    @Test
    void withTheAccessLogOnEveryRestAndGrpcRequestGetsALine() {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap()).withAccessLog(true))) {
            assertEquals(200, pixy.post("/topics/" + topic + "/messages?sync", "text/plain", "v").statusCode());
            pixy.grpc().produce(ProdRq.newBuilder().setTopic(topic).setMessage(ByteString.copyFromUtf8("v")).build());

            TestKafka.Waits.until(Duration.ofSeconds(30), "two access lines", () -> snapshot().size() >= 2);
            List<String> seen = snapshot();
            assertThat(String.join("\n", seen), containsString("\"POST /topics/" + topic + "/messages HTTP/1.1\" 200"));
            assertThat(String.join("\n", seen), containsString("127.0.0.1 - ["));
            assertThat(String.join("\n", seen), containsString("\"gRPC KafkaPixy/Produce\" OK"));
        }
    }

    @Test
    void withoutItNothingIsLogged() {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap()))) {
            assertEquals(200, pixy.post("/topics/" + topic + "/messages?sync", "text/plain", "v").statusCode());
            pixy.grpc().produce(ProdRq.newBuilder().setTopic(topic).setMessage(ByteString.copyFromUtf8("v")).build());
            assertEquals(200, pixy.get("/_ping").statusCode());
        }
        assertThat(snapshot(), empty());
    }

    private List<String> snapshot() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }
}
