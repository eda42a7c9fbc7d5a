package io.kafkapixy.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import jakarta.json.JsonObject;

/**
 * A client as the README shows it: a loop that takes one message at a time from one instance over REST
 * ({@code noAck}) and, unless it is a slow client that never acks, acks it with {@code POST .../acks}, recording
 * everything in a {@link DeliveryLedger}. Errors (refused connections of a dead instance, 503 while it drains) make it
 * back off briefly and go on, as a client does.
 */
public final class RestConsumerLoop implements AutoCloseable {

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** How long a client waits after an error before its next request. */
    private static final long BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final String instance;
    private final String base;
    private final String topic;
    private final String group;
    private final DeliveryLedger ledger;
    private final boolean acks;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final Thread thread;
    private final AtomicInteger errors = new AtomicInteger();
    private volatile boolean running = true;

    private RestConsumerLoop(String instance, int restPort, String topic, String group, DeliveryLedger ledger,
                             boolean acks) {
        this.instance = instance;
        this.base = "http://127.0.0.1:" + restPort + "/topics/" + topic;
        this.topic = topic;
        this.group = group;
        this.ledger = ledger;
        this.acks = acks;
        this.thread = Thread.ofPlatform().daemon().name("client-" + instance + "-" + topic).start(this::run);
    }

    /** A client that acks every message it takes. */
    public static RestConsumerLoop acking(String instance, int restPort, String topic, String group,
                                          DeliveryLedger ledger) {
        return new RestConsumerLoop(instance, restPort, topic, group, ledger, true);
    }

    /** A client that takes messages and never acks them. */
    public static RestConsumerLoop neverAcking(String instance, int restPort, String topic, String group,
                                               DeliveryLedger ledger) {
        return new RestConsumerLoop(instance, restPort, topic, group, ledger, false);
    }

    /** Requests that failed (not 200 and not the long poll's 408), for the test's report. */
    public int errors() {
        return errors.get();
    }

    private void run() {
        while (running) {
            try {
                long sentAt = System.nanoTime();
                HttpResponse<String> rs = http.send(HttpRequest.newBuilder(
                                URI.create(base + "/messages?group=" + group + "&noAck")).timeout(REQUEST_TIMEOUT)
                        .GET().build(), HttpResponse.BodyHandlers.ofString());
                if (rs.statusCode() == 408) {
                    continue;
                }
                if (rs.statusCode() != 200) {
                    failed();
                    continue;
                }
                JsonObject m = JsonBodies.object(rs.body());
                DeliveryLedger.Position p = new DeliveryLedger.Position(m.getInt("partition"),
                        m.getJsonNumber("offset").longValue());
                ledger.delivered(p, new String(Base64.getDecoder().decode(m.getString("value")),
                        StandardCharsets.UTF_8), instance, sentAt);
                if (acks && running) {
                    ack(p);
                }
            } catch (IOException e) {
                failed();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void ack(DeliveryLedger.Position p) throws IOException, InterruptedException {
        ledger.ackSent(p);
        HttpResponse<String> rs = http.send(HttpRequest.newBuilder(URI.create(base + "/acks?group=" + group
                        + "&partition=" + p.partition() + "&offset=" + p.offset())).timeout(REQUEST_TIMEOUT)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        if (rs.statusCode() == 200) {
            ledger.acked(p, instance, System.nanoTime());
        } else {
            failed();
        }
    }

    private void failed() {
        errors.incrementAndGet();
        LockSupport.parkNanos(BACKOFF_NANOS);
    }

    /** Stops taking messages; a request in flight is abandoned. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(TimeUnit.SECONDS.toMillis(60));
    }

    @Override
    public String toString() {
        return "client of " + instance + " on " + topic;
    }
}
