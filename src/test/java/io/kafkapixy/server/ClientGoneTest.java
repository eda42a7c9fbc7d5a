package io.kafkapixy.server;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.grpc.StatusRuntimeException;
import io.kafkapixy.consumer.Consumers;
import io.kafkapixy.testing.Background;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.ProcessPauses;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.Scrape;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.JsonObject;
import mailgun.kafkapixy.ConsNAckRq;
import mailgun.kafkapixy.ConsRs;
import org.junit.jupiter.api.Test;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Auto-acked messages are not lost to clients that have gone: a gRPC call that ended (deadline, cancel) or a REST
 * connection closed mid-poll never takes a message away; it stays for the next request. Against the broker, with
 * what was committed read back with a plain admin client.
 */
class ClientGoneTest {

    private static final int MESSAGES = 100;
    /**
     * Short enough that most calls run out of time between messages, long enough that the suite's load rarely stalls
     * this JVM (client, proxy and broker together) for most of a call.
     */
    private static final long DEADLINE_MS = 50;
    /**
     * A message is handed to a 50 ms call only while 3/4 of its time is left, so only a stall of about 37 ms between
     * the answer leaving the proxy and the client reading it can take an auto-acked message away. The test JVM holds
     * the client, the proxy and the broker; a pause of it this long is counted, and a loss without one fails.
     */
    private static final long PAUSE_MS = 15;

    private final TestKafka kafka = TestKafka.get();
    private final String topic = TestKafka.uniqueTopic("gone");
    private final String group = TestKafka.uniqueTopic("group");

    @Test
    void grpcAutoAckCallsWithShortDeadlinesReceiveEveryMessageExactlyOnce() throws Exception {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start(); ProcessPauses pauses = ProcessPauses.longerThan(PAUSE_MS)) {
            ConsNAckRq rq = ConsNAckRq.newBuilder().setTopic(topic).setGroup(group).setAutoAck(true).build();
            joinOverGrpc(pixy, rq);
            List<String> received = Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger deadlineExceeded = new AtomicInteger();
            Future<?> consumer = Background.THREADS.submit(() -> {
                while (!stop.get()) {
                    try {
                        ConsRs rs = pixy.grpc().withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS).consumeNAck(rq);
                        received.add(rs.getMessage().toStringUtf8());
                    } catch (StatusRuntimeException e) {
                        deadlineExceeded.incrementAndGet();
                    }
                }
            });
            try {
                Set<String> produced = producePaced(MESSAGES, deadlineExceeded);
                awaitCommitted(MESSAGES);
                stop.set(true);
                consumer.get(30, TimeUnit.SECONDS);

                Set<String> lost = new HashSet<>(produced);
                lost.removeAll(distinct(received));
                System.out.println("auto-ack at " + DEADLINE_MS + " ms: lost " + lost + ", " + pauses);
                assertTrue(lost.size() <= pauses.count(),
                        "lost " + lost + " with " + pauses + " (a loss needs the process to stand still)");
                synchronized (received) {
                    assertEquals(new HashSet<>(received).size(), received.size(), "none twice: " + received);
                }
                assertTrue(deadlineExceeded.get() > 0, "the calls did run out of time in between");
            } finally {
                stop.set(true);
            }
        }
    }

    @Test
    void restLongPollsWhoseConnectionsClosedLoseNoMessage() throws Exception {
        kafka.createTopic(topic, 1);
        try (RunningPixy pixy = start()) {
            Consumers consumers = pixy.app().proxies().get("").consumers();
            assertEquals(408, pixy.get(messages()).statusCode());
            TestKafka.Waits.until(Duration.ofSeconds(60), "the group's start committed",
                    () -> kafka.committed(group, topic).containsKey(0));
            int ghosts = 10;
            List<Socket> sockets = new ArrayList<>();
            for (int i = 0; i < ghosts; i++) {
                Socket s = new Socket("127.0.0.1", pixy.restPort());
                OutputStream out = s.getOutputStream();
                out.write(("GET " + messages() + " HTTP/1.1\r\nHost: pixy\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                sockets.add(s);
            }
            TestKafka.Waits.until(Duration.ofSeconds(30), "the polls parked",
                    () -> consumers.parkedRequests() == ghosts);
            for (Socket s : sockets) {
                s.close();
            }

            Set<String> produced = new HashSet<>();
            for (int i = 0; i < 5; i++) {
                kafka.produce(topic, 0, null, "m" + i);
                produced.add("m" + i);
            }
            List<String> received = new ArrayList<>();
            while (received.size() < produced.size()) {
                var rs = pixy.get(messages());
                if (rs.statusCode() == 200) {
                    JsonObject m = object(rs.body());
                    received.add(new String(Base64.getDecoder().decode(m.getString("value")), StandardCharsets.UTF_8));
                } else {
                    assertEquals(408, rs.statusCode(), rs.body());
                }
            }

            assertEquals(produced, new HashSet<>(received), "none lost to the closed connections");
            assertEquals(produced.size(), received.size());
            awaitCommitted(produced.size());
            Scrape metrics = Scrape.parse(pixy.get("/metrics").body());
            assertTrue(metrics.value("kafkapixy_consume_returned_total", "cluster", "default", "group", group,
                            "topic", topic, "mode", "kafka") >= 1,
                    "the messages handed to the closed connections came back");
        }
    }

    private RunningPixy start() {
        return RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_" + group, ConsumerSettingsBuilder.fast()));
    }

    private void joinOverGrpc(RunningPixy pixy, ConsNAckRq rq) {
        StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
                () -> pixy.grpc().withDeadlineAfter(30, TimeUnit.SECONDS).consumeNAck(rq));
        assertEquals(io.grpc.Status.Code.NOT_FOUND, e.getStatus().getCode());
        TestKafka.Waits.until(Duration.ofSeconds(60), "the group's start committed",
                () -> kafka.committed(group, topic).containsKey(0));
    }

    private static Set<String> distinct(List<String> synchronizedList) {
        synchronized (synchronizedList) {
            return new HashSet<>(synchronizedList);
        }
    }

    /** {@code n} messages, each once a call has run out of time since the one before: calls keep timing out between. */
    private Set<String> producePaced(int n, AtomicInteger timedOut) {
        Set<String> produced = new HashSet<>();
        for (int i = 0; i < n; i++) {
            int before = timedOut.get();
            kafka.produce(topic, 0, null, "m" + i);
            produced.add("m" + i);
            TestKafka.Waits.until(Duration.ofSeconds(30), "a call out of time after m" + i,
                    () -> timedOut.get() > before);
        }
        return produced;
    }

    private void awaitCommitted(int end) {
        TestKafka.Waits.until(Duration.ofSeconds(30), "every message acked and committed",
                () -> kafka.committed(group, topic).containsKey(0)
                      && kafka.committed(group, topic).get(0).offset() == end);
    }

    private String messages() {
        return "/topics/" + topic + "/messages?group=" + group;
    }
}
