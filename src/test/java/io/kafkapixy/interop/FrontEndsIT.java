package io.kafkapixy.interop;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.kafkapixy.testing.PixyProcess;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonObject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.error;
import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The front ends users put before the REST API, with their plainest configurations, against the packaged jar: nginx
 * with a bare {@code proxy_pass} (which speaks HTTP/1.0 to its upstream), HAProxy's {@code option httpchk} (an
 * HTTP/1.0 request), ApacheBench (HTTP/1.0). Debian's {@code nginx}, {@code haproxy} and {@code apache2-utils};
 * skipped when missing, unless {@code -Dinterop.required=true} (CI). What was produced is read back with a plain
 * Kafka consumer.
 */
class FrontEndsIT {

    private static final Path WORK = Path.of("target/interop/front-ends").toAbsolutePath();
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static TestKafka kafka;
    private static PixyProcess pixy;
    private static int rest;
    private static final List<Process> FRONT_ENDS = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        Files.createDirectories(WORK);
        kafka = TestKafka.get();
        Path config = WORK.resolve("pixy.yaml");
        Files.writeString(config, """
                grpc_addr: 127.0.0.1:0
                tcp_addr: 127.0.0.1:0
                proxies:
                  default:
                    kafka:
                      seed_peers: [%s]
                    consumer:
                      long_polling_timeout: 2s
                """.formatted(kafka.bootstrap()));
        pixy = PixyProcess.launch(WORK.resolve("pixy.log"), "-config", config.toString());
        rest = pixy.awaitPing().rest();
    }

    @AfterAll
    static void stop() throws Exception {
        for (Process p : FRONT_ENDS) {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        if (pixy != null) {
            pixy.close();
        }
    }

    @Test
    void nginxWithABareProxyPassServesProduceConsumeAckAndOffsets() throws Exception {
        Path nginx = tool("/usr/sbin/nginx", "nginx");
        Path dir = Files.createDirectories(WORK.resolve("nginx"));
        int port = PixyProcess.freePorts(1)[0];
        Files.writeString(dir.resolve("nginx.conf"), """
                daemon off;
                master_process off;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log;
                events { worker_connections 64; }
                http {
                  access_log %1$s/access.log;
                  client_body_temp_path %1$s/body;
                  proxy_temp_path %1$s/proxy;
                  fastcgi_temp_path %1$s/fastcgi;
                  uwsgi_temp_path %1$s/uwsgi;
                  scgi_temp_path %1$s/scgi;
                  server {
                    listen 127.0.0.1:%2$d;
                    location / { proxy_pass http://127.0.0.1:%3$d; }
                  }
                }
                """.formatted(dir, port, rest));
        launch(dir.resolve("out.log"), nginx.toString(), "-p", dir.toString(), "-c",
                dir.resolve("nginx.conf").toString());
        String base = "http://127.0.0.1:" + port;
        awaitAnswer(base + "/_ping");
        String topic = kafka.createTopic(TestKafka.uniqueTopic("nginx"), 1);
        String group = TestKafka.uniqueTopic("group");

        assertEquals("pong", get(base + "/_ping").body());
        HttpResponse<String> produced = post(base + "/topics/" + topic + "/messages?sync&key=k", "through nginx");
        assertEquals(200, produced.statusCode(), produced.body());
        JsonObject at = object(produced.body());
        ConsumerRecord<byte[], byte[]> record = kafka.read(topic, at.getInt("partition"),
                at.getJsonNumber("offset").longValue());
        assertEquals("through nginx", new String(record.value(), StandardCharsets.UTF_8));

        String consume = base + "/topics/" + topic + "/messages?group=" + group + "&noAck";
        HttpResponse<String> timeout = get(consume);
        assertEquals(408, timeout.statusCode(), timeout.body());
        assertEquals("long polling timeout", error(timeout.body()));
        TestKafka.Waits.until(WAIT, "the group's start committed",
                () -> kafka.committed(group, topic).containsKey(0));
        long offset = kafka.produce(topic, 0, null, "to consume");
        HttpResponse<String> message = get(consume);
        while (message.statusCode() == 408) {
            message = get(consume);
        }
        assertEquals(200, message.statusCode(), message.body());
        JsonObject m = object(message.body());
        assertEquals(offset, m.getJsonNumber("offset").longValue());
        assertEquals("to consume", new String(java.util.Base64.getDecoder().decode(m.getString("value")),
                StandardCharsets.UTF_8));
        HttpResponse<String> ack = post(base + "/topics/" + topic + "/acks?group=" + group + "&partition=0&offset="
                                        + offset, "");
        assertEquals(200, ack.statusCode(), ack.body());
        TestKafka.Waits.until(WAIT, "the ack committed", () -> kafka.committed(group, topic).get(0).offset() > offset);
        HttpResponse<String> offsets = get(base + "/topics/" + topic + "/offsets?group=" + group);
        assertEquals(200, offsets.statusCode(), offsets.body());
        assertTrue(offsets.body().contains("\"offset\": " + (offset + 1)), offsets.body());
        assertTrue(Files.readString(dir.resolve("access.log")).contains("\"GET /_ping HTTP/1.1\" 200"));
    }

    @Test
    void haproxysDefaultHttpCheckMarksTheProxyUpAndAMissingPathDown() throws Exception {
        Path haproxy = tool("/usr/sbin/haproxy", "haproxy");
        Path dir = Files.createDirectories(WORK.resolve("haproxy"));
        int[] ports = PixyProcess.freePorts(2);
        int port = ports[0];
        int stats = ports[1];
        Files.writeString(dir.resolve("haproxy.cfg"), """
                defaults
                  mode http
                  timeout connect 5s
                  timeout client 30s
                  timeout server 30s
                frontend front
                  bind 127.0.0.1:%1$d
                  default_backend pixy
                listen stats
                  bind 127.0.0.1:%2$d
                  stats enable
                  stats uri /stats
                backend pixy
                  option httpchk GET /_ping
                  server ping 127.0.0.1:%3$d check inter 200ms
                backend nothing
                  option httpchk GET /no/such/path
                  server missing 127.0.0.1:%3$d check inter 200ms
                """.formatted(port, stats, rest));
        launch(dir.resolve("out.log"), haproxy.toString(), "-db", "-f", dir.resolve("haproxy.cfg").toString());
        String csv = "http://127.0.0.1:" + stats + "/stats;csv";
        awaitAnswer(csv);

        TestKafka.Waits.until(WAIT, "the checks to settle", () -> {
            String s = statsCsv(csv);
            return s.contains("pixy,ping,") && row(s, "pixy,ping,").contains(",UP,")
                   && row(s, "nothing,missing,").contains(",DOWN,");
        });
        String s = statsCsv(csv);
        assertTrue(row(s, "pixy,ping,").contains("L7OK"), row(s, "pixy,ping,"));
        assertTrue(row(s, "nothing,missing,").contains("L7STS"), row(s, "nothing,missing,"));
        assertEquals("pong", get("http://127.0.0.1:" + port + "/_ping").body());
    }

    @Test
    void apacheBenchProducesAThousandMessagesWithoutAnError() throws Exception {
        Path ab = tool("/usr/bin/ab", "apache2-utils");
        String topic = kafka.createTopic(TestKafka.uniqueTopic("ab"), 1);
        Path body = WORK.resolve("ab-body.txt");
        Files.writeString(body, "from ab");
        Process run = new ProcessBuilder(ab.toString(), "-n", "1000", "-c", "10", "-p", body.toString(),
                "-T", "text/plain", "http://127.0.0.1:" + rest + "/topics/" + topic + "/messages?sync")
                .redirectErrorStream(true).start();
        String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(run.waitFor(5, TimeUnit.MINUTES), out);
        assertEquals(0, run.exitValue(), out);

        assertEquals(1000, number(out, "Complete requests:\\s+(\\d+)"), out);
        assertFalse(out.contains("Non-2xx responses"), out);
        // answers differ in length as offsets grow (ab counts that as "Length"); nothing else may fail
        Matcher failed = Pattern.compile("Connect: (\\d+), Receive: (\\d+), Length: \\d+, Exceptions: (\\d+)")
                .matcher(out);
        if (failed.find()) {
            assertEquals("0 0 0", failed.group(1) + " " + failed.group(2) + " " + failed.group(3), out);
        }
        List<ConsumerRecord<byte[], byte[]>> records = kafka.readFrom(topic, 0, 0, 1000);
        assertEquals(1000, records.size());
        for (ConsumerRecord<byte[], byte[]> r : records) {
            assertEquals("from ab", new String(r.value(), StandardCharsets.UTF_8));
        }
        assertEquals(1000L, kafka.endOffsets(topic, 1).get(0));
    }

    private static Path tool(String path, String debianPackage) throws IOException {
        Path tool = Path.of(path);
        if (!Files.isExecutable(tool)) {
            Skips.skip("front ends", path + " is missing", "apt-get install " + debianPackage);
        }
        return tool;
    }

    private static void launch(Path log, String... command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        FRONT_ENDS.add(p);
    }

    private static void awaitAnswer(String url) {
        TestKafka.Waits.until(WAIT, url + " answering", () -> {
            try {
                return get(url).statusCode() == 200;
            } catch (IOException notYet) {
                return false;
            }
        });
    }

    private static HttpResponse<String> get(String url) throws IOException {
        return send(HttpRequest.newBuilder(URI.create(url)).timeout(WAIT));
    }

    private static HttpResponse<String> post(String url, String body) throws IOException {
        return send(HttpRequest.newBuilder(URI.create(url)).timeout(WAIT).header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private static HttpResponse<String> send(HttpRequest.Builder rq) throws IOException {
        try {
            return HTTP.send(rq.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static String statsCsv(String url) {
        try {
            return get(url).body();
        } catch (IOException e) {
            return "";
        }
    }

    private static String row(String csv, String prefix) {
        return csv.lines().filter(l -> l.startsWith(prefix)).findFirst().orElse("");
    }

    private static int number(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }
}
