package io.kafkapixy.server.http;


import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.kafkapixy.consumer.AckMode;
import io.kafkapixy.consumer.ConsumedMessage;
import io.kafkapixy.proxy.Proxy;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import org.apache.kafka.common.header.Header;

/**
 * {@code GET [/clusters/{cluster}]/topics/{topic}/messages} (reference §1.3) and
 * {@code POST [/clusters/{cluster}]/topics/{topic}/acks} (§1.4).
 */
final class ConsumeHandler {

    private static final String FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";

    /** The consume response: base64 key and value ({@code null} when Kafka's is), headers always present. */
    @JsonbPropertyOrder({"key", "value", "partition", "offset", "headers"})
    public record Response(String key, String value, int partition, long offset, List<HeaderJson> headers) {
    }

    @JsonbPropertyOrder({"key", "value"})
    public record HeaderJson(String key, String value) {
    }

    void consume(Proxy proxy, String topic, ServerRequest req, ServerResponse res) {
        RequestParams params = RequestParams.ofQuery(req.query().rawValue());
        String group = ConsumeParams.group(params);
        AckMode ack = ConsumeParams.ack(params, "ackPartition", "ackOffset", true);
        ConsumedMessage m = proxy.consumers().consume(group, topic, ack);
        HttpErrors.sendJson(res, Status.OK_200, response(m));
    }

    void ack(Proxy proxy, String topic, ServerRequest req, ServerResponse res) {
        RequestParams params = params(req);
        String group = ConsumeParams.group(params);
        AckMode ack = ConsumeParams.ack(params, "partition", "offset", false);
        // noAck and auto-ack name no message: the original looks them up as partitions -1 and -2 and fails.
        switch (ack) {
            case AckMode.Explicit e -> proxy.consumers().ack(group, topic, e.partition(), e.offset());
            case AckMode.None n -> proxy.consumers().ack(group, topic, -1, -1);
            case AckMode.Auto a -> proxy.consumers().ack(group, topic, -2, -1);
        }
        HttpErrors.sendJson(res, Status.OK_200, Map.of());
    }

    /** Query parameters, preceded by those of a form body (Go's {@code ParseForm} on a POST). */
    private static RequestParams params(ServerRequest req) {
        String contentType = req.headers().first(HeaderNames.CONTENT_TYPE).orElse("");
        if (isForm(contentType) && req.content().hasEntity()) {
            byte[] body = ProduceHandler.readBody(req, ProduceHandler.MAX_FORM_BYTES);
            return RequestParams.ofForm(body, req.query().rawValue());
        }
        return RequestParams.ofQuery(req.query().rawValue());
    }

    /** Go's {@code ParseForm} takes the media type with parameters ({@code ; charset=UTF-8}) here. */
    static boolean isForm(String contentType) {
        int semi = contentType.indexOf(';');
        String media = (semi < 0 ? contentType : contentType.substring(0, semi)).trim();
        return media.equalsIgnoreCase(FORM_CONTENT_TYPE);
    }

    static Response response(ConsumedMessage m) {
        Base64.Encoder b64 = Base64.getEncoder();
        List<HeaderJson> headers = new ArrayList<>(m.headers().size());
        for (Header h : m.headers()) {
            headers.add(new HeaderJson(h.key(), h.value() == null ? null : b64.encodeToString(h.value())));
        }
        return new Response(m.key() == null ? null : b64.encodeToString(m.key()),
                m.value() == null ? null : b64.encodeToString(m.value()), m.partition(), m.offset(), headers);
    }

}
