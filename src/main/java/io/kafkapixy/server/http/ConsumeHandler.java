package io.kafkapixy.server.http;


import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.kafkapixy.consumer.AckMode;
import io.kafkapixy.consumer.ConsumedMessage;
import io.kafkapixy.consumer.PendingConsume;
import io.kafkapixy.consumer.Settlement;
import io.kafkapixy.proxy.Proxy;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import org.apache.kafka.common.header.Header;

/**
 * {@code GET [/clusters/{cluster}]/topics/{topic}/messages} (consume, one message per request) and
 * {@code POST [/clusters/{cluster}]/topics/{topic}/acks} (ack), with the original's parameters and answers.
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
        PendingConsume pending = proxy.consumers().consumeBlocking(group, topic, ack);
        ConsumedMessage m = pending.await();
        try {
            sendInTwoWrites(res, Json.bytes(response(m)));
        } catch (RuntimeException notSent) {
            pending.cancel();
            throw notSent;
        }
        pending.delivered();
    }

    /**
     * Sends a 200 JSON answer as two socket writes: the status line, headers and first byte, then the rest. Helidon
     * gives a handler no view of its connection, so a client that closed it while its poll waited is only found by
     * writing: its system answers the first write with a reset, and the second then fails (before the message's body
     * is sent, and before it counts as delivered). On one host the reset is there before the second write; over a
     * network it takes a round trip, so a client that closed just before may still be sent a message.
     */
    private static void sendInTwoWrites(ServerResponse res, byte[] body) {
        res.status(Status.OK_200);
        res.header(HeaderValues.create(HeaderNames.CONTENT_TYPE, "application/json"));
        res.header(HeaderValues.create(HeaderNames.CONTENT_LENGTH, String.valueOf(body.length)));
        try (OutputStream out = res.outputStream()) {
            out.write(body, 0, 1);
            out.flush();
            out.write(body, 1, body.length - 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void ack(Proxy proxy, String topic, ServerRequest req, ServerResponse res) {
        settle(proxy, topic, req, res, Settlement.ACK);
    }

    /** "Never deliver this again": the ack call's parameters and answers (a new call of this project). */
    void reject(Proxy proxy, String topic, ServerRequest req, ServerResponse res) {
        settle(proxy, topic, req, res, Settlement.REJECT);
    }

    /** "Not done yet": restarts the message's ack_timeout; the ack call's parameters and answers (a new call). */
    void renew(Proxy proxy, String topic, ServerRequest req, ServerResponse res) {
        settle(proxy, topic, req, res, Settlement.RENEW);
    }

    private static void settle(Proxy proxy, String topic, ServerRequest req, ServerResponse res, Settlement how) {
        RequestParams params = settleParams(req);
        String group = ConsumeParams.group(params);
        AckMode ack = ConsumeParams.ack(params, "partition", "offset", false);
        // noAck and auto-ack name no message: the original looks them up as partitions -1 and -2 and fails.
        int partition = switch (ack) {
            case AckMode.Explicit e -> e.partition();
            case AckMode.None n -> -1;
            case AckMode.Auto a -> -2;
        };
        long offset = ack instanceof AckMode.Explicit e ? e.offset() : -1;
        try {
            proxy.consumers().settle(group, topic, partition, offset, how).join();
        } catch (CompletionException e) {
            throw PendingConsume.failure(e);
        }
        HttpErrors.sendJson(res, Status.OK_200, Map.of());
    }

    /**
     * An ack's, reject's or renewal's parameters: the query's, preceded by those of a form body (Go's
     * {@code ParseForm} on a POST); read once per request ({@link KeptParams}).
     */
    static RequestParams settleParams(ServerRequest req) {
        return KeptParams.of(req, ConsumeHandler::readSettleParams);
    }

    private static RequestParams readSettleParams(ServerRequest req) {
        String contentType = req.headers().first(HeaderNames.CONTENT_TYPE).orElse("");
        if (isForm(contentType) && req.content().hasEntity()) {
            byte[] body = RequestBodies.read(req, RequestBodies.MAX_FORM_BYTES);
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
