package io.kafkapixy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.kafkapixy.testing.JsonBodies;
import io.kafkapixy.testing.PixyProcess;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonObject;
import mailgun.kafkapixy.KafkaPixyGrpc;
import mailgun.kafkapixy.ProdRq;
import mailgun.kafkapixy.ProdRs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packaged {@code target/kafka-pixy.jar} started as a user starts it, in its own process: as the README's quick
 * start ({@code ./run.sh}: {@code -embeddedKafka}, the broker's jars added to the class path) and in production with
 * the original's {@code -config FILE}, where it holds no broker. Run by Failsafe after {@code package}.
 */
class PackagedJarIT {

    /** The broker's own jars (kafka-clients is the proxy's). */
    private static final Pattern BROKER_JAR = Pattern.compile(
            "(^|/)(kafka_2\\.13|kafka-server|kafka-storage|kafka-raft|kafka-metadata|scala-)");
    private static final Pattern EMBEDDED = Pattern.compile("Embedded Kafka broker started: (\\S+)");

    @Test
    void theQuickStartCommandServesRestAndGrpcOnAnEmbeddedBroker(@TempDir Path dir) throws Exception {
        Path pidFile = dir.resolve("pid");
        Path log = dir.resolve("out.log");
        PixyProcess process = PixyProcess.launchQuickStart(log, "-embeddedKafka", "-tcpAddr", "127.0.0.1:0",
                "-grpcAddr", "127.0.0.1:0", "-pidFile", pidFile.toString());
        try {
            PixyProcess.Ports ports = process.awaitPing();
            int rest = ports.rest();
            int grpc = ports.grpc();
            assertEquals(Long.toString(process.process().pid()), Files.readString(pidFile));
            Matcher m = EMBEDDED.matcher(Files.readString(log));
            assertTrue(m.find(), "the log names the embedded broker");
            String bootstrap = m.group(1);

            JsonObject restRs = JsonBodies.object(post(rest, "/topics/quick/messages?key=bar&sync", "via curl"));
            assertArrayEquals(bytes("via curl"), read(bootstrap, "quick", restRs.getInt("partition"),
                    restRs.getJsonNumber("offset").longValue()).value());

            ProdRs grpcRs = produceGrpc(grpc, ProdRq.newBuilder().setTopic("quick")
                    .setMessage(ByteString.copyFromUtf8("via grpc")).build());
            assertArrayEquals(bytes("via grpc"), read(bootstrap, "quick", grpcRs.getPartition(),
                    grpcRs.getOffset()).value());
        } finally {
            process.close();
        }
        assertTrue(Files.readString(log).contains("Stopped"), "SIGTERM stops the proxy cleanly");
    }

    /** The README's share-group walk-through: a config that names no brokers runs on the embedded one. */
    @Test
    void theShareGroupQuickStartHandsEachClientItsOwnMessageAndAnUnackedOneOutAgain(@TempDir Path dir)
            throws Exception {
        Path config = dir.resolve("share.yaml");
        Files.writeString(config, "proxies:\n  default:\n    consumer:\n      membership: share\n"
                                  + "      ack_timeout: 3s\n");
        Path log = dir.resolve("out.log");
        PixyProcess process = PixyProcess.launchQuickStart(log, "-embeddedKafka", "-config", config.toString(),
                "-tcpAddr", "127.0.0.1:0", "-grpcAddr", "127.0.0.1:0");
        try {
            int rest = process.awaitPing().rest();
            Matcher m = EMBEDDED.matcher(Files.readString(log));
            assertTrue(m.find(), "the log names the embedded broker");
            String messages = "/topics/jobs/messages?group=workers";
            post(rest, "/topics/jobs/messages?sync", "job-0");
            assertEquals(408, get(rest, messages).statusCode(), "a new share group joins at the newest offset");
            post(rest, "/topics/jobs/messages?sync", "job-1");
            post(rest, "/topics/jobs/messages?sync", "job-2");

            JsonObject first = take(rest, messages + "&noAck", process);
            long handedOut = System.nanoTime();
            JsonObject second = take(rest, messages + "&noAck", process);
            assertEquals(List.of(1L, 2L), List.of(first.getJsonNumber("offset").longValue(),
                    second.getJsonNumber("offset").longValue()), "each client its own message of the one partition");
            post(rest, "/topics/jobs/acks?group=workers&partition=0&offset=1", "");

            JsonObject again = take(rest, messages, process);
            assertEquals(2L, again.getJsonNumber("offset").longValue(), "the unacked one, not the acked one");
            assertTrue(System.nanoTime() - handedOut >= TimeUnit.SECONDS.toNanos(3), "not before its ack_timeout");
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", m.group(1)))) {
                assertFalse(admin.describeShareGroups(List.of("workers")).all().get(30, TimeUnit.SECONDS)
                        .get("workers").members().isEmpty(), "the proxy's consumers are a share group's members");
            }
        } finally {
            process.close();
        }
    }

    @Test
    void theOriginalsConfigFileAndFlagsStartTheProxyOnTheNamedBrokers(@TempDir Path dir) throws Exception {
        TestKafka kafka = TestKafka.get();
        String topic = kafka.createTopic(TestKafka.uniqueTopic("jar"), 4);
        Path config = dir.resolve("kafka-pixy.yaml");
        Files.writeString(config, """
                grpc_addr: 127.0.0.1:1
                tcp_addr: 127.0.0.1:0
                proxies:
                  main:
                    kafka:
                      seed_peers: [%s]
                    producer:
                      flush_frequency: 10ms
                  other:
                    kafka:
                      seed_peers: [%s]
                """.formatted(kafka.bootstrap(), kafka.bootstrap()));
        Path log = dir.resolve("out.log");
        PixyProcess process = PixyProcess.launch(log, "-config", config.toString(), "--grpcAddr=127.0.0.1:0");
        try {
            PixyProcess.Ports ports = process.awaitPing();
            int rest = ports.rest();
            int grpc = ports.grpc();
            assertTrue(grpc != 1, "the flag's gRPC address wins over the file's");
            assertTrue(!Files.readString(log).contains("Embedded Kafka broker started"));

            JsonObject viaDefault = JsonBodies.object(post(rest, "/topics/" + topic + "/messages?key=foo&sync", "a"));
            assertEquals(1, viaDefault.getInt("partition"));
            JsonObject viaName = JsonBodies.object(post(rest, "/clusters/other/topics/" + topic
                                                              + "/messages?key=foo&sync", "b"));
            assertEquals(viaDefault.getJsonNumber("offset").longValue() + 1,
                    viaName.getJsonNumber("offset").longValue());
            ProdRs rs = produceGrpc(grpc, ProdRq.newBuilder().setCluster("other").setTopic(topic)
                    .setKeyValue(ByteString.copyFromUtf8("foo")).setMessage(ByteString.copyFromUtf8("c")).build());
            assertEquals(1, rs.getPartition());
            assertArrayEquals(bytes("c"), kafka.read(topic, 1, rs.getOffset()).value());
        } finally {
            process.close();
        }
    }

    @Test
    void anInvalidConfigFileStopsStartupWithTheReason(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("bad.yaml");
        Files.writeString(config, "proxies:\n  a:\n    producer:\n      retry_max: 0\n");
        Path log = dir.resolve("out.log");
        PixyProcess process = PixyProcess.launch(log, "-config", config.toString());

        assertTrue(process.process().waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, process.process().exitValue());
        assertTrue(Files.readString(log).contains("Failed to load config: err=(invalid config parameter: "
                + "invalid config, cluster=a: producer.retry_max must be > 0)"), Files.readString(log));
    }

    @Test
    void theEmbeddedBrokerIsRefusedWhenAConfigNamesTheBrokers(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("real.yaml");
        Files.writeString(config, "proxies:\n  a:\n    kafka:\n      seed_peers: [kafka-1:9092]\n");
        Path log = dir.resolve("out.log");
        PixyProcess process = PixyProcess.launch(log, "-embeddedKafka", "-config", config.toString());

        assertTrue(process.process().waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, process.process().exitValue());
        assertTrue(Files.readString(log).contains("-embeddedKafka cannot be combined with -kafkaPeers or with a "
                + "-config whose default cluster sets kafka.seed_peers"), Files.readString(log));
    }

    @Test
    void theProductionArtifactHoldsNoBroker() throws Exception {
        Path libs = PixyProcess.jar().toAbsolutePath().getParent().resolve("libs");
        List<String> jars;
        try (var files = Files.list(libs)) {
            jars = files.map(f -> f.getFileName().toString()).sorted().toList();
        }
        String classPath;
        try (JarFile jar = new JarFile(PixyProcess.jar().toFile())) {
            classPath = jar.getManifest().getMainAttributes().getValue("Class-Path");
        }
        assertTrue(jars.stream().anyMatch(j -> j.startsWith("kafka-clients-")), jars.toString());
        assertTrue(classPath.contains("libs/kafka-clients-"), classPath);
        for (String entry : concat(jars, List.of(classPath.split(" ")))) {
            assertFalse(BROKER_JAR.matcher(entry).find(), entry + " is the broker's, not the proxy's");
        }
    }

    @Test
    void theProductionJarAnswersEmbeddedKafkaWithHowToStartTheQuickStart(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("out.log");
        PixyProcess process = PixyProcess.launch(log, "-embeddedKafka");

        assertTrue(process.process().waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, process.process().exitValue());
        assertTrue(Files.readString(log).contains("Failed to load config: err=(-embeddedKafka needs the quick "
                + "start's broker, which the production artifact does not hold: start the quick start with ./run.sh"),
                Files.readString(log));
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }

    private static String post(int port, String pathAndQuery, String body) throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpResponse<String> rs = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + pathAndQuery)).header("Content-Type", "text/plain").timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, rs.statusCode(), rs.body());
        return rs.body();
    }

    private static HttpResponse<String> get(int port, String pathAndQuery) throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
                .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The next message, asking again while the answer is a long-poll timeout; the proxy's log when none comes. */
    private static JsonObject take(int port, String pathAndQuery, PixyProcess process) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            HttpResponse<String> rs = get(port, pathAndQuery);
            if (rs.statusCode() == 200) {
                return JsonBodies.object(rs.body());
            }
            assertEquals(408, rs.statusCode(), rs.body());
        }
        throw new AssertionError("no message in 60 s; the proxy's log: " + process.log());
    }

    private static ProdRs produceGrpc(int port, ProdRq rq) {
        ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        try {
            return KafkaPixyGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS).produce(rq);
        } finally {
            channel.shutdownNow();
        }
    }

    private static ConsumerRecord<byte[], byte[]> read(String bootstrap, String topic, int partition, long offset) {
        Properties p = new Properties();
        p.putAll(Map.of("bootstrap.servers", bootstrap,
                "key.deserializer", ByteArrayDeserializer.class.getName(),
                "value.deserializer", ByteArrayDeserializer.class.getName()));
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            TopicPartition tp = new TopicPartition(topic, partition);
            consumer.assign(List.of(tp));
            consumer.seek(tp, offset);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline) {
                var records = consumer.poll(Duration.ofMillis(200)).records(tp);
                if (!records.isEmpty()) {
                    return records.getFirst();
                }
            }
            throw new AssertionError("no record at " + tp + "@" + offset);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
