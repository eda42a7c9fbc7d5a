package io.kafkapixy.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.kafkapixy.testing.PixyProcess;
import mailgun.kafkapixy.ConsNAckRq;
import mailgun.kafkapixy.ConsRs;
import mailgun.kafkapixy.KafkaPixyGrpc;

/**
 * Capacity: {@code --parked} consume requests parked at once on an empty topic, over gRPC and then over REST. Every
 * one must be answered with the long-poll timeout (HTTP 408 / gRPC NOT_FOUND "long polling timeout") within
 * {@code long_polling_timeout} + 1 s of being sent, while the server's heap, RSS and threads are sampled for their
 * peak. REST gets one connection per request (HTTP/1.1 has no multiplexing); gRPC spreads its streams over channels
 * of {@value #STREAMS_PER_CHANNEL}, well below any server's HTTP/2 stream limit. Requests go out at
 * {@value #RATE_PER_SECOND}/s so that connection set-up does not overflow the server's accept backlog, and still all
 * of them are parked together well before the first times out.
 */
final class CapacityScenario implements Scenario {

    static final int STREAMS_PER_CHANNEL = 100;
    static final int RATE_PER_SECOND = 5_000;
    private static final int BATCH = 50;
    private static final long SAMPLE_EVERY_MILLIS = 250;

    @Override
    public String name() {
        return "capacity";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        for (String api : List.of("grpc", "rest")) {
            try {
                measure(ctx, api);
            } catch (Exception e) {
                ctx.report.add(name(), "capacity." + api, label(api, ctx.options.parked()))
                        .failed(ClosedLoop.describe(e));
            }
        }
    }

    private static String label(String api, int parked) {
        return (api.equals("grpc") ? "gRPC " : "REST ") + String.format("%,d", parked) + " parked long polls";
    }

    /** The answers, one slot per request; complete() is called from client threads, once per request. */
    private static final class Answers {
        final long[] sent;
        final long[] latency;
        final boolean[] expected;
        final String[] status;
        final AtomicIntegerArray done;
        final CountDownLatch all;

        Answers(int n) {
            sent = new long[n];
            latency = new long[n];
            expected = new boolean[n];
            status = new String[n];
            done = new AtomicIntegerArray(n);
            all = new CountDownLatch(n);
        }

        void complete(int i, boolean isExpected, String what) {
            long now = System.nanoTime();
            if (done.compareAndSet(i, 0, 1)) {
                latency[i] = now - sent[i];
                expected[i] = isExpected;
                status[i] = what;
                all.countDown();
            }
        }
    }

    /** Sends request {@code i} in {@code group}, stamping {@code answers.sent[i]} first. */
    private interface Sender extends AutoCloseable {
        void send(int i, String group);

        @Override
        void close() throws InterruptedException;
    }

    private void measure(BenchContext ctx, String api) throws Exception {
        Options o = ctx.options;
        int n = o.parked();
        int perGroup = Math.min(n, ctx.target.parkedPerGroup(o));
        String topic = ctx.newTopic("capacity-" + api);
        List<String> groups = new ArrayList<>();
        for (int g = 0; g < (n + perGroup - 1) / perGroup; g++) {
            groups.add(ctx.newGroup("parked-" + api));
        }
        Optional<String> cluster = ctx.target.parkedCluster();
        long limit = o.longPoll().toNanos() + TimeUnit.SECONDS.toNanos(1);
        Answers answers = new Answers(n);
        ProcessStats.Sample before = ctx.stats.sample();
        AtomicReference<ProcessStats.Sample> peak = new AtomicReference<>(before);
        Thread sampler = Thread.ofPlatform().daemon().name("capacity-sampler").start(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    ProcessStats.Sample s = ctx.stats.sample();
                    peak.accumulateAndGet(s, ProcessStats.Sample::max);
                    Thread.sleep(SAMPLE_EVERY_MILLIS);
                }
            } catch (InterruptedException e) {
                // done
            }
        });
        double sendSeconds;
        boolean allAnswered;
        try (Sender sender = api.equals("grpc") ? grpc(ctx, topic, cluster, answers, n)
                : rest(ctx, topic, cluster, answers)) {
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                if (i % BATCH == 0) {
                    ClosedLoop.sleepUntil(start + i * (1_000_000_000L / RATE_PER_SECOND));
                }
                sender.send(i, groups.get(i / perGroup));
            }
            sendSeconds = (System.nanoTime() - start) / 1e9;
            allAnswered = answers.all.await(o.longPoll().toMillis() + 20_000, TimeUnit.MILLISECONDS);
        } finally {
            sampler.interrupt();
            sampler.join();
        }

        LatencyRecorder latency = new LatencyRecorder();
        long ok = 0;
        long late = 0;
        long answered = 0;
        Map<String, Integer> wrong = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            if (answers.done.get(i) == 0) {
                continue;
            }
            answered++;
            latency.record(answers.latency[i]);
            if (!answers.expected[i]) {
                wrong.merge(answers.status[i], 1, Integer::sum);
            } else if (answers.latency[i] <= limit) {
                ok++;
            } else {
                late++;
            }
        }
        String expectedAnswer = api.equals("grpc") ? "NOT_FOUND \"long polling timeout\"" : "408";
        Report.Row row = ctx.report.add(name(), "capacity." + api, label(api, n)).latency(latency);
        row.note(String.format("%,d/%,d answered %s within %s", ok, n, expectedAnswer,
                io.kafkapixy.config.Durations.format(Duration.ofNanos(limit))));
        if (late > 0) {
            row.note(String.format("%,d LATE (slowest %.0f ms)", late, latency.maxMillis()));
        }
        wrong.forEach((status, count) -> row.note(String.format("%,d answered %s", count, status)));
        if (!allAnswered) {
            row.note(String.format("%,d NOT ANSWERED", n - answered));
        }
        ProcessStats.Sample max = peak.get();
        row.note("peak " + max.describe());
        row.note("before " + before.describe());
        String spread = groups.size() == 1
                ? "1 group" + cluster.map(c -> " on cluster '" + c + "' (channel_buffer_size " + (n + 16) + ")")
                        .orElse("")
                : String.format("%d groups of %d%s", groups.size(), perGroup,
                        cluster.map(c -> " on cluster '" + c + "'").orElse(" (default channel_buffer_size allows ~65)"));
        row.note(spread);
        Map<String, Object> wrongJson = new LinkedHashMap<>(wrong);
        row.extra("parked", n).extra("groups", groups.size()).extra("perGroup", perGroup)
                .extra("cluster", cluster.orElse("(default)")).extra("answeredInTime", ok).extra("late", late)
                .extra("unanswered", n - answered).extra("wrongAnswers", wrongJson)
                .extra("limitSeconds", limit / 1e9).extra("sendSeconds", sendSeconds)
                .extra("maxLatencyMs", latency.maxMillis()).extra("peak", max.toMap())
                .extra("before", before.toMap()).extra("proxyMemoryLimit", ctx.target.ownProxy()
                        ? PixyProcess.containerMemoryFlag() : "unknown (external)");
        ctx.progress(row);
    }

    private Sender grpc(BenchContext ctx, String topic, Optional<String> cluster, Answers answers, int n) {
        int channelCount = (n + STREAMS_PER_CHANNEL - 1) / STREAMS_PER_CHANNEL;
        List<ManagedChannel> channels = new ArrayList<>();
        List<KafkaPixyGrpc.KafkaPixyStub> stubs = new ArrayList<>();
        for (int c = 0; c < channelCount; c++) {
            ManagedChannel ch = ctx.target.newChannel();
            channels.add(ch);
            stubs.add(KafkaPixyGrpc.newStub(ch));
        }
        long deadlineMillis = ctx.options.longPoll().toMillis() + 10_000;
        return new Sender() {
            @Override
            public void send(int i, String group) {
                ConsNAckRq rq = ConsNAckRq.newBuilder().setCluster(cluster.orElse("")).setTopic(topic)
                        .setGroup(group).setNoAck(true).build();
                answers.sent[i] = System.nanoTime();
                stubs.get(i % stubs.size()).withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS)
                        .consumeNAck(rq, new StreamObserver<>() {
                            @Override
                            public void onNext(ConsRs rs) {
                                answers.complete(i, false, "a message from an empty topic");
                            }

                            @Override
                            public void onError(Throwable t) {
                                Status s = Status.fromThrowable(t);
                                answers.complete(i, PixyGrpc.isLongPollTimeout(s),
                                        s.getCode() + " \"" + s.getDescription() + "\"");
                            }

                            @Override
                            public void onCompleted() {
                            }
                        });
            }

            @Override
            public void close() throws InterruptedException {
                channels.forEach(ManagedChannel::shutdownNow);
                for (ManagedChannel ch : channels) {
                    ch.awaitTermination(5, TimeUnit.SECONDS);
                }
            }
        };
    }

    private Sender rest(BenchContext ctx, String topic, Optional<String> cluster, Answers answers) {
        // its own client: its pool ends up holding one connection per request, closed with it
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        String prefix = cluster.map(c -> "/clusters/" + c).orElse("");
        Duration timeout = ctx.options.longPoll().plusSeconds(10);
        return new Sender() {
            @Override
            public void send(int i, String group) {
                URI uri = ctx.target.uri(prefix + "/topics/" + topic + "/messages?group=" + group);
                answers.sent[i] = System.nanoTime();
                http.sendAsync(HttpRequest.newBuilder(uri).timeout(timeout).GET().build(),
                        HttpResponse.BodyHandlers.ofString()).whenComplete((rs, e) -> {
                            if (e != null) {
                                Throwable cause = e instanceof CompletionException && e.getCause() != null
                                        ? e.getCause() : e;
                                answers.complete(i, false, ClosedLoop.describe(cause));
                            } else {
                                String body = rs.body() == null ? "" : rs.body().strip();
                                answers.complete(i, rs.statusCode() == 408
                                                    && body.contains(PixyGrpc.LONG_POLL_TIMEOUT),
                                        "HTTP " + rs.statusCode() + " " + body.substring(0, Math.min(80,
                                                body.length())));
                            }
                        });
            }

            @Override
            public void close() {
                http.shutdownNow();
            }
        };
    }
}
