package io.kafkapixy.server;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.config.KafkaConfig;
import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.config.ProxyConfig;
import io.kafkapixy.embedded.EmbeddedKafka;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Share groups on brokers that do not serve them (the {@code share.version} feature off, as on a Kafka before 4.1):
 * the share group's consume answers 503 naming the missing feature, and the same instance goes on serving its
 * classic groups.
 */
class ShareGroupsUnavailableTest {

    private static EmbeddedKafka broker;

    @BeforeAll
    static void brokerWithoutShareGroups() throws Exception {
        broker = EmbeddedKafka.start();
        Properties p = new Properties();
        p.put("bootstrap.servers", broker.bootstrapServers());
        try (Admin admin = Admin.create(p)) {
            admin.updateFeatures(Map.of("share.version", new FeatureUpdate((short) 0,
                    FeatureUpdate.UpgradeType.SAFE_DOWNGRADE)), new UpdateFeaturesOptions())
                    .all().get(30, TimeUnit.SECONDS);
            admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    @Test
    void aShareGroupIsAnswered503NamingTheFeatureAndClassicGroupsGoOn() {
        ConsumerConfig consumer = ConsumerSettingsBuilder.fast().build()
                .with(ConsumerConfig.SHARE_GROUPS, List.of("shared"));
        ProxyConfig p = RunningPixy.proxy(broker.bootstrapServers()).withConsumer(consumer);
        PixyConfig config = PixyConfig.of(Map.of("default", p), "default")
                .with(PixyConfig.GRPC_ADDR, "127.0.0.1:0").with(PixyConfig.TCP_ADDR, "127.0.0.1:0");
        try (RunningPixy pixy = RunningPixy.start(config)) {
            HttpResponse<String> shared = pixy.get("/topics/t/messages?group=shared");
            assertEquals(503, shared.statusCode(), shared.body());
            assertTrue(object(shared.body()).getString("error").contains("share.version"), shared.body());

            assertEquals(408, pixy.get("/topics/t/messages?group=classic").statusCode(), "joined, nothing yet");
            produce("hello");
            TestKafka.Waits.until(Duration.ofSeconds(30), "the classic group consumes", () ->
                    pixy.get("/topics/t/messages?group=classic").statusCode() == 200);
            assertEquals(503, pixy.get("/topics/t/messages?group=shared").statusCode(), "still named, still 503");
        }
    }

    private static void produce(String value) {
        Properties p = new Properties();
        p.put("bootstrap.servers", broker.bootstrapServers());
        try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>("t", value)).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
