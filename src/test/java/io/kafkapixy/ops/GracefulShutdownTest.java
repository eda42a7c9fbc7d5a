package io.kafkapixy.ops;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.config.ProducerConfig;
import io.kafkapixy.config.ProxyConfig;
import io.kafkapixy.testing.Background;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.error;
import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Stopping an instance loses nothing: while it drains, new consume requests get 503 and acks are still taken; what was
 * acked is committed and never delivered again, what was not is delivered again by the next instance; async messages it
 * accepted all reach Kafka. Checked with a plain Kafka client.
 */
class GracefulShutdownTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private final TestKafka kafka = TestKafka.get();
    private final String topic = TestKafka.uniqueTopic("shutdown");
    private final String group = TestKafka.uniqueTopic("group");

    @Test
    void acksSentDuringTheDrainAreCommittedAndOnlyUnackedMessagesComeBackAfterARestart() throws Exception {
        kafka.createTopic(topic, 1);
        var settings = ConsumerSettingsBuilder.fast().ackTimeout(Duration.ofSeconds(60))
                .shutdownTimeout(Duration.ofSeconds(10));
        RunningPixy first = start(settings);
        assertEquals(408, first.get(messages()).statusCode());
        for (int i = 0; i < 6; i++) {
            kafka.produce(topic, 0, null, "m" + i);
        }
        for (int i = 0; i < 6; i++) {
            assertEquals(i, offset(first.get(messages() + "&noAck")));
        }
        ack(first, 0);
        ack(first, 1);

        CompletableFuture<Void> stopping = CompletableFuture.runAsync(first::close, Background.THREADS);
        TestKafka.Waits.until(WAIT, "new consume requests refused while draining", () -> {
            HttpResponse<String> rs = first.get(messages());
            return rs.statusCode() == 503 && error(rs.body()).equals("service is shutting down");
        });
        ack(first, 2);
        ack(first, 3);
        // offsets 4 and 5 are still out: the instance waits for their acks, up to consumer.shutdown_timeout
        assertFalse(stopping.isDone());
        stopping.get(90, TimeUnit.SECONDS);

        assertEquals(4, kafka.committed(group, topic).get(0).offset());
        try (RunningPixy second = start(settings)) {
            assertEquals(4, offset(second.get(messages())));
            assertEquals(5, offset(second.get(messages())));
            assertEquals(408, second.get(messages()).statusCode());
        }
    }

    @Test
    void everyAsyncMessageAcceptedBeforeTheStopReachesKafka() throws Exception {
        kafka.createTopic(topic, 1);
        ProxyConfig proxy = RunningPixy.proxy(kafka.bootstrap());
        ProducerConfig p = proxy.producer();
        // Batches wait up to a second, so the stop finds messages still in the producer's buffer.
        proxy = proxy.withProducer(p.with(ProducerConfig.FLUSH_FREQUENCY, Duration.ofSeconds(1)));
        PixyConfig base = RunningPixy.config(kafka.bootstrap());
        RunningPixy pixy = RunningPixy.start(base.withProxies(Map.of("default", proxy)));
        Set<String> accepted = new HashSet<>();
        List<CompletableFuture<Void>> sends = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            String value = "a" + i;
            sends.add(CompletableFuture.runAsync(() -> {
                if (pixy.post("/topics/" + topic + "/messages", "text/plain", value).statusCode() == 200) {
                    synchronized (accepted) {
                        accepted.add(value);
                    }
                }
            }, Background.THREADS));
        }
        CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        pixy.close();

        assertEquals(200, accepted.size());
        Set<String> landed = new HashSet<>();
        kafka.readFrom(topic, 0, 0, accepted.size()).forEach(r -> landed.add(new String(r.value())));
        assertEquals(accepted, landed);
        assertTrue(kafka.endOffsets(topic, 1).get(0) == 200);
    }

    private void ack(RunningPixy pixy, long offset) {
        HttpResponse<String> rs = pixy.post("/topics/" + topic + "/acks?group=" + group + "&partition=0&offset="
                                            + offset, "text/plain", "");
        assertEquals(200, rs.statusCode(), rs.body());
    }

    private RunningPixy start(ConsumerSettingsBuilder settings) {
        return RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_" + group, settings));
    }

    private String messages() {
        return "/topics/" + topic + "/messages?group=" + group;
    }

    private static long offset(HttpResponse<String> rs) {
        assertEquals(200, rs.statusCode(), rs.body());
        return object(rs.body()).getJsonNumber("offset").longValue();
    }
}
