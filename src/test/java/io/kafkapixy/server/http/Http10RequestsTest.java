package io.kafkapixy.server.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.helidon.common.buffers.DataReader;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What Helidon's HTTP/1.1 connection reads of an HTTP/1.0 connection's bytes. */
class Http10RequestsTest {

    private final AtomicInteger http10Answers = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicBoolean answered = new java.util.concurrent.atomic.AtomicBoolean();

    @Test
    void aRequestWithoutKeepAliveSaysHttp11AndCloseAndEndsTheConnection() {
        Http10Requests requests = of("GET /_ping HTTP/1.0\r\nAccept: */*\r\n\r\n");

        assertEquals("GET /_ping HTTP/1.1\r\nAccept: */*\r\nConnection: close\r\n\r\n", next(requests));
        assertTrue(requests.answeringHttp10());
        assertEquals(1, http10Answers.get());
        assertNull(requests.get(), "the connection ends when the next request is asked for");
    }

    @Test
    void keepAliveRequestsFollowEachOtherWithTheirBodies() {
        Http10Requests requests = of("POST /t HTTP/1.0\r\nConnection: Keep-Alive\r\nContent-Length: 3\r\n\r\nabc"
                                     + "GET /_ping HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");

        assertEquals("POST /t HTTP/1.1\r\nConnection: Keep-Alive\r\nContent-Length: 3\r\n\r\n", next(requests));
        assertEquals("abc", next(requests));
        assertEquals("GET /_ping HTTP/1.1\r\nConnection: keep-alive\r\n\r\n", next(requests));
        assertEquals(2, http10Answers.get());
    }

    @Test
    void aBodyIsHandedOnAsItArrivesAndNoFurther() {
        Http10Requests requests = of("POST /t HTTP/1.0\r\nContent-Length: 6\r\n\r\nab", "cd", "efGET /next");

        next(requests);
        assertEquals("ab", next(requests));
        assertEquals("cd", next(requests));
        assertEquals("ef", next(requests));
        assertNull(requests.get(), "what follows a request that closes the connection is not read");
    }

    @Test
    void aClosingRequestAnsweredWithoutItsBodyEndsTheConnectionInsteadOfPassingTheBodyOn() {
        Http10Requests requests = of("POST /t HTTP/1.0\r\nContent-Length: 9\r\n\r\nnot\r\nread");

        next(requests);
        answered.set(true);

        assertNull(requests.get(), "the body's bytes are not read as a next request");
    }

    @Test
    void expectAndTransferEncodingAreDroppedAsGoDropsThemForHttp10() {
        Http10Requests requests = of("POST /t HTTP/1.0\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n"
                                     + "Content-Length: 1\r\n\r\nx");

        assertEquals("POST /t HTTP/1.1\r\nContent-Length: 1\r\nConnection: close\r\n\r\n", next(requests));
        assertEquals("x", next(requests));
    }

    @Test
    void anHttp11RequestPassesUnchanged() {
        String head = "GET /_ping HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n";
        Http10Requests requests = of(head + head);

        assertEquals(head, next(requests));
        assertFalse(requests.answeringHttp10());
        assertEquals(head, next(requests));
        assertEquals(0, http10Answers.get());
    }

    @Test
    void aHeadThatDoesNotParsePassesAsItCameAndSoDoesTheRest() {
        Http10Requests requests = of("GET /_ping HTTP/1.0\r\nNoColon\r\n\r\n", "GET /_ping HTTP/1.0\r\n\r\n");

        assertEquals("GET /_ping HTTP/1.1\r\nNoColon\r\n\r\n", next(requests));
        assertTrue(requests.answeringHttp10(), "its error answer says HTTP/1.0");
        assertEquals("GET /_ping HTTP/1.0\r\n\r\n", next(requests), "Helidon's answer to the first closes");
    }

    @Test
    void aHeadLongerThanTheLimitPassesAsItCame() {
        String head = "GET /_ping HTTP/1.0\r\nX-Long: " + "v".repeat(200) + "\r\n\r\n";
        Http10Requests requests = new Http10Requests(reader(List.of(head)), 64, http10Answers::incrementAndGet,
                answered::get);

        assertEquals("GET /_ping HTTP/1.1\r\n", next(requests));
        assertEquals(head.substring(21), next(requests), "Helidon's own limits answer it");
    }

    @Test
    void theConnectionsEndIsTheEnd() {
        Http10Requests requests = of();

        assertNull(requests.get());
    }

    private Http10Requests of(String... chunks) {
        return new Http10Requests(reader(List.of(chunks)), 16 * 1024, http10Answers::incrementAndGet, answered::get);
    }

    private static DataReader reader(List<String> chunks) {
        Deque<byte[]> left = new ArrayDeque<>();
        chunks.forEach(c -> left.add(c.getBytes(StandardCharsets.ISO_8859_1)));
        return DataReader.create(left::poll);
    }

    private static String next(Http10Requests requests) {
        byte[] bytes = requests.get();
        assertTrue(bytes != null, "more bytes");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(bytes);
        return out.toString(StandardCharsets.ISO_8859_1);
    }
}
