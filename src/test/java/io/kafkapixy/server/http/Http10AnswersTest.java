package io.kafkapixy.server.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.helidon.common.buffers.BufferData;
import io.helidon.common.buffers.DataWriter;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The status line of an answer to an HTTP/1.0 request, and nothing else, says HTTP/1.0. */
class Http10AnswersTest {

    private final List<String> written = new ArrayList<>();
    private final Http10Answers answers = new Http10Answers(new Recording());

    @Test
    void theAnswerToAnHttp10RequestSaysHttp10() {
        answers.expectAnswer();
        answers.write(data("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n"));
        answers.write(data("HTTP/1.1"));

        assertEquals(List.of("HTTP/1.0 200 OK\r\nContent-Length: 8\r\n\r\n", "HTTP/1.1"), written,
                "the body is not touched, even where it looks like a status line");
    }

    @Test
    void answersToOtherRequestsAreUnchanged() {
        answers.writeNow(data("HTTP/1.1 200 OK\r\n\r\n"));
        answers.expectAnswer();
        answers.writeNow(data("HTTP/1.1 408 Request Timeout\r\n\r\n"), data("{}"));
        answers.write(data("HTTP/1.1 200 OK\r\n\r\n"));

        assertEquals(List.of("HTTP/1.1 200 OK\r\n\r\n", "HTTP/1.0 408 Request Timeout\r\n\r\n", "{}",
                "HTTP/1.1 200 OK\r\n\r\n"), written);
    }

    private static BufferData data(String s) {
        return BufferData.create(s.getBytes(StandardCharsets.US_ASCII));
    }

    private final class Recording implements DataWriter {

        @Override
        public void write(BufferData... buffers) {
            for (BufferData b : buffers) {
                write(b);
            }
        }

        @Override
        public void write(BufferData buffer) {
            written.add(new String(buffer.readBytes(), StandardCharsets.US_ASCII));
        }

        @Override
        public void writeNow(BufferData... buffers) {
            write(buffers);
        }

        @Override
        public void writeNow(BufferData buffer) {
            write(buffer);
        }
    }
}
