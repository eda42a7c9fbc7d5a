package io.kafkapixy.bench;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * The proxy's REST API as the benchmark calls it: one JDK HTTP/1.1 client whose keep-alive pool gives each
 * concurrent caller its own connection, as a pool of ordinary HTTP clients would. Thread-safe; closed by its owner.
 */
final class PixyRest implements AutoCloseable {

    private final Target target;
    private final Duration longPoll;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    PixyRest(Target target, Duration longPoll) {
        this.target = target;
        this.longPoll = longPoll;
    }

    /** POST /topics/{topic}/messages[?sync] with a text/plain body and no key. */
    void produce(String topic, byte[] value, boolean sync)
            throws IOException, InterruptedException, ClosedLoop.Unexpected {
        HttpRequest rq = target.request("/topics/" + topic + "/messages" + (sync ? "?sync" : ""))
                .header("Content-Type", "text/plain").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofByteArray(value)).build();
        HttpResponse<String> rs = http.send(rq, HttpResponse.BodyHandlers.ofString());
        if (rs.statusCode() != 200) {
            throw unexpected(rs);
        }
    }

    /** GET /topics/{topic}/messages?group={group} (auto-ack): the JSON message, or empty on 408. */
    Optional<String> consume(String topic, String group)
            throws IOException, InterruptedException, ClosedLoop.Unexpected {
        HttpRequest rq = target.request("/topics/" + topic + "/messages?group=" + group)
                .timeout(longPoll.plusSeconds(10)).GET().build();
        HttpResponse<String> rs = http.send(rq, HttpResponse.BodyHandlers.ofString());
        if (rs.statusCode() == 200) {
            return Optional.of(rs.body());
        }
        if (rs.statusCode() == 408) {
            return Optional.empty();
        }
        throw unexpected(rs);
    }

    /** GET /topics/{topic}/messages?group={group}&noAck: the JSON message, or empty on 408. */
    Optional<jakarta.json.JsonObject> consumeNoAck(String topic, String group)
            throws IOException, InterruptedException, ClosedLoop.Unexpected {
        HttpRequest rq = target.request("/topics/" + topic + "/messages?group=" + group
                        + "&noAck").timeout(longPoll.plusSeconds(10)).GET().build();
        HttpResponse<String> rs = http.send(rq, HttpResponse.BodyHandlers.ofString());
        if (rs.statusCode() == 200) {
            return Optional.of(jakarta.json.Json.createReader(new java.io.StringReader(rs.body())).readObject());
        }
        if (rs.statusCode() == 408) {
            return Optional.empty();
        }
        throw unexpected(rs);
    }

    /** POST /topics/{topic}/acks?group=&partition=&offset=. */
    void ack(String topic, String group, int partition, long offset)
            throws IOException, InterruptedException, ClosedLoop.Unexpected {
        HttpRequest rq = target.request("/topics/" + topic + "/acks?group=" + group
                        + "&partition=" + partition + "&offset=" + offset).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.noBody()).build();
        HttpResponse<String> rs = http.send(rq, HttpResponse.BodyHandlers.ofString());
        if (rs.statusCode() != 200) {
            throw unexpected(rs);
        }
    }

    static ClosedLoop.Unexpected unexpected(HttpResponse<String> rs) {
        String body = rs.body() == null ? "" : rs.body().strip();
        return new ClosedLoop.Unexpected("HTTP " + rs.statusCode() + " " + body.substring(0, Math.min(200,
                body.length())));
    }

    @Override
    public void close() {
        http.close();
    }
}
