package io.kafkapixy.security;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.kafkapixy.config.LimitsConfig;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code limits.max_rest_connections}: the REST port holds at most that many connections at once, so a flood of
 * clients cannot exhaust the process's memory; a connection beyond the limit is not served until another closes,
 * then it is served as usual.
 */
class RestConnectionLimitTest {

    private static final int MAX_CONNECTIONS = 4;
    private static final byte[] PING = "GET /_ping HTTP/1.1\r\nHost: pixy\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static RunningPixy pixy;

    @BeforeAll
    static void start() {
        TestKafka kafka = TestKafka.get();
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_rest_connections",
                        new ConsumerSettingsBuilder())
                .withLimits(LimitsConfig.DEFAULT.with(LimitsConfig.MAX_REST_CONNECTIONS, MAX_CONNECTIONS)));
    }

    @AfterAll
    static void stop() {
        if (pixy != null) {
            pixy.close();
        }
    }

    @Test
    void aConnectionBeyondTheLimitIsServedOnceAnotherCloses() throws Exception {
        List<Socket> open = new ArrayList<>();
        try {
            Socket waiting = null;
            // keep-alive connections, each answered and left open, until one is not answered
            for (int i = 0; i <= MAX_CONNECTIONS && waiting == null; i++) {
                Socket s = new Socket("127.0.0.1", pixy.restPort());
                open.add(s);
                s.getOutputStream().write(PING);
                s.setSoTimeout(3_000);
                try {
                    assertEquals("pong", body(s.getInputStream()));
                } catch (SocketTimeoutException notServed) {
                    waiting = s;
                }
            }
            assertTrue(waiting != null, MAX_CONNECTIONS + 1 + " connections were all served");
            assertTrue(open.size() >= 2, "not even one connection was served");

            open.getFirst().close();
            waiting.setSoTimeout(30_000);
            assertEquals("pong", body(waiting.getInputStream()), "the waiting connection, once another closed");
        } finally {
            for (Socket s : open) {
                s.close();
            }
        }
    }

    /** Reads one HTTP/1.1 response with a Content-Length and returns its body. */
    private static String body(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed after " + head);
            }
            head.append((char) b);
        }
        String lower = head.toString().toLowerCase();
        int at = lower.indexOf("content-length:");
        assertTrue(at >= 0, "no Content-Length in " + head);
        int length = Integer.parseInt(lower.substring(at + 15, lower.indexOf("\r\n", at)).trim());
        return new String(in.readNBytes(length), StandardCharsets.US_ASCII);
    }
}
