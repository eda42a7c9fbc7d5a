package io.kafkapixy.server.http;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NotHttpRequestsTest {

    @ParameterizedTest
    @ValueSource(strings = {"GET /_ping HTTP/1.1\r\nHost: x\r\n\r\n", "POST /topics/t/messages?sync HTTP/1.1\n",
            "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "GET /_pi", "", "GET /topics/t/messages?key=a%20b"})
    void requestsAndTheirBeginningsAreLeftToHttp(String start) {
        assertEquals(Optional.empty(), classify(start.getBytes(StandardCharsets.ISO_8859_1)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"GARBAGE\r\n\r\n", "GET /_ping\r\n", "GET /_ping HTTP/2.0\r\n", "\r\n", "GET /\u0000x",
            "\u0016\u0003\u0001\u0002\u0000"})
    void whatCannotBeAnHttp11RequestIsA400(String start) {
        var answer = classify(start.getBytes(StandardCharsets.ISO_8859_1));
        assertTrue(answer.isPresent(), start);
        assertEquals(400, answer.get().status());
    }

    @Test
    void http10IsLeftToItsOwnConnections() {
        byte[] start = "GET /_ping HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        assertEquals(Optional.empty(), classify(start));
        assertEquals(NotHttpRequests.FirstLine.HTTP_1_0, NotHttpRequests.firstLine(start, start.length));
    }

    @Test
    void onlyTheStartOfALongLineIsLookedAt() {
        byte[] longLine = ("GET /topics/t/messages?key=" + "k".repeat(100_000)).getBytes(StandardCharsets.US_ASCII);
        assertEquals(Optional.empty(), classify(longLine));
    }

    private static Optional<NotHttpRequests.Answer> classify(byte[] start) {
        return NotHttpRequests.classify(start, start.length);
    }
}
