package io.kafkapixy.server.http;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.producer.MessageKey;
import io.kafkapixy.producer.ProduceRequest;
import io.kafkapixy.producer.ProduceResult;
import io.kafkapixy.proxy.Proxy;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * {@code POST [/clusters/{cluster}]/topics/{topic}/messages}: the body by content type, the {@code key} and
 * {@code sync} parameters, {@code X-Kafka-*} headers as record headers, async {@code {}} or sync partition and offset.
 */
final class ProduceHandler {

    private static final Pattern JSON_CONTENT_TYPE = Pattern.compile("^application/(?:.*\\+)?json(?:;.*)?$");
    private static final String FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";
    private static final String HEADER_PREFIX = "X-Kafka-";

    @JsonbPropertyOrder({"partition", "offset"})
    public record Response(int partition, long offset) {
    }

    void handle(Proxy proxy, String topic, ServerRequest req, ServerResponse res) {
        String contentType = req.headers().first(HeaderNames.CONTENT_TYPE).orElse("");
        String rawQuery = req.query().rawValue();
        int maxMessageBytes = proxy.config().producer().maxMessageBytes();
        RequestParams params;
        byte[] message;
        if (contentType.equals("text/plain") || JSON_CONTENT_TYPE.matcher(contentType).matches()) {
            params = RequestParams.ofQuery(rawQuery);
            message = readRawBody(req, maxMessageBytes);
        } else if (contentType.equals(FORM_CONTENT_TYPE)) {
            params = RequestParams.ofForm(RequestBodies.read(req, RequestBodies.MAX_FORM_BYTES), rawQuery);
            message = params.firstBytes("msg");
            if (message.length == 0) {
                throw PixyException.badRequest("empty message");
            }
        } else {
            throw PixyException.badRequest("unsupported content type " + contentType);
        }
        MessageKey key = params.has("key") ? MessageKey.of(params.firstBytes("key")) : MessageKey.ABSENT;
        ProduceRequest rq = new ProduceRequest(topic, key, message, recordHeaders(req),
                io.opentelemetry.context.Context.current());
        if (params.has("sync")) {
            ProduceResult result = proxy.producer().produceSync(rq);
            HttpErrors.sendJson(res, Status.OK_200, new Response(result.partition(), result.offset()));
        } else {
            proxy.producer().produceAsync(rq);
            HttpErrors.sendJson(res, Status.OK_200, Map.of());
        }
    }

    /**
     * The whole body as the message; {@code Content-Length} is mandatory and must match. A body announced larger
     * than {@code max_message_bytes} is refused before it is read.
     */
    private static byte[] readRawBody(ServerRequest req, int maxMessageBytes) {
        String length = req.headers().first(HeaderNames.CONTENT_LENGTH).orElse(null);
        if (length == null) {
            throw PixyException.badRequest("missing Content-Length header");
        }
        long expected;
        try {
            expected = Long.parseLong(length.trim());
        } catch (NumberFormatException e) {
            throw PixyException.badRequest("invalid Content-Length header: " + length);
        }
        if (expected > maxMessageBytes) {
            throw PixyException.messageTooLarge();
        }
        byte[] body = RequestBodies.read(req, maxMessageBytes);
        if (body.length != expected) {
            throw PixyException.badRequest("message size does not match Content-Length: expected="
                                           + expected + ", actual=" + body.length);
        }
        return body;
    }

    /** One record header per value of every {@code X-Kafka-*} header; values are standard base64 with padding. */
    private static List<org.apache.kafka.common.header.Header> recordHeaders(ServerRequest req) {
        List<org.apache.kafka.common.header.Header> headers = new ArrayList<>();
        for (Header h : req.headers()) {
            String name = GoHeaders.canonical(h.name());
            if (!name.startsWith(HEADER_PREFIX)) {
                continue;
            }
            String key = name.substring(HEADER_PREFIX.length());
            for (String value : h.allValues()) {
                headers.add(new RecordHeader(key, decodeBase64(name, value)));
            }
        }
        return headers;
    }

    private static byte[] decodeBase64(String headerName, String value) {
        try {
            if (value.length() % 4 != 0) {
                throw new IllegalArgumentException("missing padding");
            }
            return Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            throw PixyException.badRequest("Invalid base64 encoding for header: " + headerName);
        }
    }
}
