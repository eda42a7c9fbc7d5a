package io.kafkapixy.faults;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.kafkapixy.testing.DeliveryLedger;
import io.kafkapixy.testing.JsonBodies;
import jakarta.json.JsonObject;

/**
 * A client producing one message at a time with {@code POST .../messages?sync} to one instance, keeping what the
 * proxy acknowledged (200 with partition and offset). Errors make it back off briefly and go on with a new message.
 */
final class RestProducerLoop implements AutoCloseable {

    /** A produce the proxy acknowledged, and when the answer arrived ({@link System#nanoTime()}). */
    record Acknowledged(String value, DeliveryLedger.Position position, long at) {
    }

    private final String name;
    private final String url;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Acknowledged> acknowledged = new ArrayList<>();
    private final AtomicInteger errors = new AtomicInteger();
    private final Thread thread;
    private volatile boolean running = true;

    RestProducerLoop(String name, int restPort, String topic) {
        this.name = name;
        this.url = "http://127.0.0.1:" + restPort + "/topics/" + topic + "/messages?sync";
        this.thread = Thread.ofPlatform().daemon().name("producer-" + name).start(this::run);
    }

    private void run() {
        for (int n = 0; running; n++) {
            String value = name + "-" + n;
            try {
                HttpResponse<String> rs = http.send(HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(60)).header("Content-Type", "text/plain")
                        .POST(HttpRequest.BodyPublishers.ofString(value)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (rs.statusCode() == 200) {
                    JsonObject o = JsonBodies.object(rs.body());
                    synchronized (this) {
                        acknowledged.add(new Acknowledged(value, new DeliveryLedger.Position(o.getInt("partition"),
                                o.getJsonNumber("offset").longValue()), System.nanoTime()));
                    }
                } else {
                    failed();
                }
            } catch (IOException e) {
                failed();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void failed() {
        errors.incrementAndGet();
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
    }

    synchronized List<Acknowledged> acknowledged() {
        return List.copyOf(acknowledged);
    }

    synchronized long acknowledgedSince(long at) {
        return acknowledged.stream().filter(a -> a.at() > at).count();
    }

    int errors() {
        return errors.get();
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(TimeUnit.SECONDS.toMillis(60));
    }
}
