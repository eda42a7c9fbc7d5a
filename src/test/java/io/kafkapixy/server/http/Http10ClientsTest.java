package io.kafkapixy.server.http;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.Http10Socket;
import io.kafkapixy.testing.RawHttp;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.error;
import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HTTP/1.0 requests, as nginx's default reverse proxy, HAProxy's health check and ApacheBench send them, answered as
 * the same requests over HTTP/1.1 are: an HTTP/1.0 status line, a Content-Length on every answer, the connection
 * closed after it unless the request asked to keep it. What was produced is read back with a plain Kafka consumer.
 */
class Http10ClientsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final TestKafka kafka = TestKafka.get();
    private static final String topic = TestKafka.uniqueTopic("http10");
    private static final String group = TestKafka.uniqueTopic("group");
    private static RunningPixy pixy;

    @BeforeAll
    static void start() {
        kafka.createTopic(topic, 1);
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_" + group,
                ConsumerSettingsBuilder.fast().longPollingTimeout(Duration.ofSeconds(2))));
    }

    @AfterAll
    static void stop() {
        pixy.close();
    }

    @Test
    void aRequestWithoutHostIsAnsweredInHttp10AndTheConnectionClosed() throws Exception {
        try (Http10Socket s = Http10Socket.open(pixy.restPort())) {
            String rs = s.exchange("GET /_ping HTTP/1.0\r\n\r\n", WAIT);

            assertTrue(rs.startsWith("HTTP/1.0 200 OK\r\n"), rs);
            assertEquals("pong", RawHttp.body(rs));
            assertTrue(s.closedByServer(WAIT), "closed after the answer");
        }
    }

    @Test
    void aRequestWithHostAndABodyProducesWhatItCarries() throws Exception {
        try (Http10Socket s = Http10Socket.open(pixy.restPort())) {
            String rs = s.exchange("POST /topics/" + topic + "/messages?sync&key=k HTTP/1.0\r\nHost: pixy\r\n"
                                   + "Content-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello", WAIT);

            assertTrue(rs.startsWith("HTTP/1.0 200 OK\r\n"), rs);
            assertEquals("hello", readBack(rs));
            assertTrue(s.closedByServer(WAIT));
        }
    }

    @Test
    void jsonAndFormBodiesAreTakenAsOverHttp11() throws Exception {
        String json = "{\"a\": [1, 2]}";
        try (Http10Socket s = Http10Socket.open(pixy.restPort())) {
            String rs = s.exchange(post("/topics/" + topic + "/messages?sync", "application/json", json), WAIT);
            assertEquals(json, readBack(rs));
        }
        try (Http10Socket s = Http10Socket.open(pixy.restPort())) {
            String rs = s.exchange(post("/topics/" + topic + "/messages", "application/x-www-form-urlencoded",
                    "msg=from+a+form&sync"), WAIT);
            assertEquals("from a form", readBack(rs));
        }
    }

    @Test
    void aBodyTheAnswerDidNotNeedIsNotTakenForANextRequest() throws Exception {
        try (Http10Socket s = Http10Socket.open(pixy.restPort())) {
            String rs = s.exchange(post("/topics/" + topic + "/messages", "application/x-unknown",
                    "GET /_ping HTTP/1.0\r\n\r\n"), WAIT);

            assertTrue(rs.startsWith("HTTP/1.0 4"), rs);
            assertTrue(s.closedByServer(WAIT), "one answer, then the connection closed");
        }
    }

    @Test
    void keepAliveKeepsTheConnectionForTheNextRequestsUntilOneDoesNotAsk() throws Exception {
        try (Http10Socket s = Http10Socket.open(pixy.restPort())) {
            String first = s.exchange("GET /_ping HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", WAIT);
            String second = s.exchange(post("/topics/" + topic + "/messages?sync", "text/plain", "kept")
                    .replace("\r\n\r\n", "\r\nConnection: keep-alive\r\n\r\n"), WAIT);
            String third = s.exchange("GET /_ping HTTP/1.0\r\n\r\n", WAIT);

            assertTrue(first.startsWith("HTTP/1.0 200 OK\r\n"), first);
            assertTrue(first.contains("\r\nConnection: keep-alive\r\n"), first);
            assertEquals("kept", readBack(second));
            assertTrue(third.startsWith("HTTP/1.0 200 OK\r\n"), third);
            assertTrue(s.closedByServer(WAIT));
        }
    }

    @Test
    void aLongPollTimesOutThenTakesAMessageWhichIsAckedAndCommitted() throws Exception {
        String consume = "/topics/" + topic + "/messages?group=" + group + "&noAck";
        String timeout = http10Get(consume);
        assertTrue(timeout.startsWith("HTTP/1.0 408 Request Timeout\r\n"), timeout);
        assertEquals("long polling timeout", error(RawHttp.body(timeout)));

        long offset = kafka.produce(topic, 0, null, "to consume");
        JsonObject m = null;
        while (m == null) {
            String rs = http10Get(consume);
            JsonObject candidate = object(RawHttp.body(rs));
            if (RawHttp.status(rs) == 200 && candidate.getJsonNumber("offset").longValue() == offset) {
                m = candidate;
            }
        }
        assertEquals("to consume", new String(Base64.getDecoder().decode(m.getString("value")),
                StandardCharsets.UTF_8));

        String ack = exchange(post("/topics/" + topic + "/acks?group=" + group + "&partition=0&offset=" + offset,
                "text/plain", ""));
        assertEquals(200, RawHttp.status(ack), ack);
        TestKafka.Waits.until(WAIT, "the ack committed", () -> kafka.committed(group, topic).containsKey(0)
                && kafka.committed(group, topic).get(0).offset() > offset);
        String offsets = http10Get("/topics/" + topic + "/offsets?group=" + group);
        assertEquals(200, RawHttp.status(offsets), offsets);
        assertTrue(RawHttp.body(offsets).contains("\"offset\": " + (offset + 1)), offsets);
    }

    @Test
    void adminMetricsAndHealthAnswersCarryTheirLength() {
        for (String path : new String[] {"/topics", "/topics/" + topic, "/metrics", "/health", "/openapi"}) {
            String rs = http10Get(path);

            assertTrue(rs.startsWith("HTTP/1.0 200 OK\r\n"), path + ": " + rs);
            assertFalse(rs.toLowerCase().contains("\r\ntransfer-encoding"), path + ": " + rs);
        }
    }

    @Test
    void aMalformedHeadGetsTheAnswerItGetsOverHttp11() {
        String http11 = RawHttp.answer(pixy.restPort(), "GET /_ping HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII), WAIT);
        String http10 = exchange("GET /_ping HTTP/1.0\r\nNoColon\r\n\r\n");

        assertEquals(400, RawHttp.status(http10), http10);
        assertTrue(http10.startsWith("HTTP/1.0 "), http10);
        assertEquals(RawHttp.body(http11), RawHttp.body(http10));
    }

    @Test
    void aRequestLineThatArrivesInPartsIsReadAsWhatItTurnsOutToBe() throws Exception {
        try (Http10Socket s = Http10Socket.open(pixy.restPort())) {
            s.send("GET /_p");
            // a line split this way may be either version, so HTTP/1.1's rules apply: it carries a Host
            String rs = s.exchange("ing HTTP/1.0\r\nHost: x\r\n\r\n", WAIT);
            assertTrue(rs.startsWith("HTTP/1.0 200 OK\r\n"), rs);
            assertTrue(s.closedByServer(WAIT));
        }
        try (Http10Socket s = Http10Socket.open(pixy.restPort())) {
            s.send("GET /_p");
            String rs = s.exchange("ing HTTP/1.1\r\nHost: x\r\n\r\n", WAIT);
            assertTrue(rs.startsWith("HTTP/1.1 200 OK\r\n"), rs);
            assertEquals("pong", RawHttp.body(s.exchange("GET /_ping HTTP/1.1\r\nHost: x\r\n\r\n", WAIT)),
                    "HTTP/1.1 keeps its connection");
        }
    }

    private static String post(String path, String contentType, String body) {
        return "POST " + path + " HTTP/1.0\r\nContent-Type: " + contentType + "\r\nContent-Length: "
               + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    private static String http10Get(String path) {
        return exchange("GET " + path + " HTTP/1.0\r\n\r\n");
    }

    private static String exchange(String request) {
        try (Http10Socket s = Http10Socket.open(pixy.restPort())) {
            String rs = s.exchange(request, WAIT);
            assertTrue(s.closedByServer(WAIT), "closed after the answer to " + request);
            return rs;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String readBack(String produceAnswer) {
        assertEquals(200, RawHttp.status(produceAnswer), produceAnswer);
        JsonObject at = object(RawHttp.body(produceAnswer));
        return new String(kafka.read(topic, at.getInt("partition"), at.getJsonNumber("offset").longValue()).value(),
                StandardCharsets.UTF_8);
    }
}
