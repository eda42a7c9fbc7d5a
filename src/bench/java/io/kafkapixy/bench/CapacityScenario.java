package io.kafkapixy.bench;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * Capacity: many groups on one instance, as a daemon or a sidecar serves them after a restart. First what one idle
 * group costs ({@value #IDLE_GROUPS} groups joined by one REST long poll each: RSS, threads, sockets and heap per
 * group, read once their polls have ended and the groups sit idle). Then, for each {@code --parked} count, that many
 * consume requests parked at once on an empty topic, in groups of {@code --parked-per-group} (default 50, which the
 * default {@code channel_buffer_size} holds), over gRPC and then over REST, each run on new groups once the previous
 * run's groups have left. Every request must be answered with the long-poll timeout (HTTP 408 / gRPC NOT_FOUND "long
 * polling timeout") within {@code long_polling_timeout} + 1 s of being sent, or refused at once (429 /
 * RESOURCE_EXHAUSTED) when the instance's limits are reached; the server's heap, RSS, threads and sockets are sampled
 * for their peak. REST gets one connection per request (HTTP/1.1 has no multiplexing); gRPC spreads its streams over
 * channels of {@value #STREAMS_PER_CHANNEL}, well below any server's HTTP/2 stream limit. Requests go out at
 * {@value #RATE_PER_SECOND}/s so that connection set-up does not overflow the server's accept backlog, and still all
 * of them are parked together well before the first times out.
 */
final class CapacityScenario implements Scenario {

    static final int STREAMS_PER_CHANNEL = 100;
    static final int RATE_PER_SECOND = 5_000;
    static final int IDLE_GROUPS = 60;
    static final String IDLE_KEY = "capacity.idle-groups";
    private static final int BATCH = 50;
    private static final long SAMPLE_EVERY_MILLIS = 250;
    /** How long the groups of a run may take to leave: the default subscription_timeout (15 s) and their leaving. */
    private static final Duration GROUPS_LEAVE = Duration.ofSeconds(60);

    @Override
    public String name() {
        return "capacity";
    }

    static String key(String api, int parked) {
        return "capacity." + api + "." + parked;
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        ProcessStats.Sample baseline = ctx.stats.sample();
        awaitGroupsGone(ctx, baseline); // the warm-up's
        try {
            idleGroups(ctx);
        } catch (Exception e) {
            ctx.report.add(name(), IDLE_KEY, IDLE_GROUPS + " idle groups").failed(ClosedLoop.describe(e));
        }
        awaitGroupsGone(ctx, baseline);
        for (int parked : ctx.options.parked()) {
            for (String api : List.of("grpc", "rest")) {
                try {
                    measure(ctx, api, parked);
                } catch (Exception e) {
                    ctx.report.add(name(), key(api, parked), label(api, parked, ctx.options.parkedPerGroup()))
                            .failed(ClosedLoop.describe(e));
                }
                awaitGroupsGone(ctx, baseline);
            }
        }
    }

    private static String label(String api, int parked, int perGroup) {
        return (api.equals("grpc") ? "gRPC " : "REST ") + String.format("%,d groups x %d parked", 
                (parked + perGroup - 1) / perGroup, perGroup);
    }

    /**
     * What an idle group costs: {@value #IDLE_GROUPS} new groups, each joined by one REST long poll on an empty
     * topic; once every poll has timed out the groups are idle (they stay until {@code subscription_timeout}), and
     * the process is looked at again.
     */
    private void idleGroups(BenchContext ctx) throws Exception {
        String topic = ctx.newTopic("capacity-idle");
        ProcessStats.Sample before = ctx.stats.liveSample();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        try {
            List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
            for (int g = 0; g < IDLE_GROUPS; g++) {
                HttpRequest.Builder rq = ctx.target.request("/topics/" + topic + "/messages?group="
                        + ctx.newGroup("idle"));
                polls.add(http.sendAsync(rq.timeout(ctx.options.longPoll().plusSeconds(30))
                        .GET().build(), HttpResponse.BodyHandlers.ofString()));
            }
            Map<String, Integer> statuses = new TreeMap<>();
            for (var poll : polls) {
                statuses.merge(String.valueOf(poll.get(ctx.options.longPoll().toMillis() + 60_000,
                        TimeUnit.MILLISECONDS).statusCode()), 1, Integer::sum);
            }
            // the last polls' answers are out; the groups stay, idle, until subscription_timeout
            Thread.sleep(2_000);
            ProcessStats.Sample after = ctx.stats.liveSample();
            Report.Row row = ctx.report.add(name(), IDLE_KEY, IDLE_GROUPS + " idle groups");
            row.note("answers " + statuses);
            row.note(String.format("per group: memory %s (live heap %s, RSS outside the heap %s), threads %s, "
                            + "sockets %s", perGroup(memory(before), memory(after), true),
                    perGroup(before.heapUsedBytes(), after.heapUsedBytes(), true),
                    perGroup(before.nonHeapRssBytes(), after.nonHeapRssBytes(), true),
                    perGroup(before.osThreads(), after.osThreads(), false),
                    perGroup(before.sockets(), after.sockets(), false)));
            row.note("with them " + after.describe());
            row.note("before " + before.describe());
            row.extra("groups", IDLE_GROUPS).extra("statuses", new LinkedHashMap<>(statuses))
                    .extra("memoryMiBPerGroup", perGroupValue(memory(before), memory(after), 1048576.0))
                    .extra("rssMiBPerGroup", perGroupValue(before.rssBytes(), after.rssBytes(), 1048576.0))
                    .extra("threadsPerGroup", perGroupValue(before.osThreads(), after.osThreads(), 1))
                    .extra("socketsPerGroup", perGroupValue(before.sockets(), after.sockets(), 1))
                    .extra("heapMiBPerGroup", perGroupValue(before.heapUsedBytes(), after.heapUsedBytes(), 1048576.0))
                    .extra("after", after.toMap()).extra("before", before.toMap())
                    .extra("proxyMemoryLimit", ctx.target.ownProxy() ? PixyProcess.containerMemoryFlag()
                            : "unknown (external)");
            ctx.progress(row);
        } finally {
            http.shutdownNow();
        }
    }

    /**
     * What the process holds for its work: live heap (the sample follows a full collection) plus RSS outside the
     * heap. Plain RSS would not show a group's heap, as the heap's pages are committed once and stay.
     */
    private static long memory(ProcessStats.Sample s) {
        return s.heapUsedBytes() < 0 || s.nonHeapRssBytes() < 0 ? -1 : s.heapUsedBytes() + s.nonHeapRssBytes();
    }

    private static String perGroup(long before, long after, boolean bytes) {
        if (before < 0 || after < 0) {
            return "n/a";
        }
        double d = (after - before) / (double) IDLE_GROUPS;
        return bytes ? String.format("%.2f MiB", d / 1048576.0) : String.format("%.2f", d);
    }

    private static Object perGroupValue(long before, long after, double unit) {
        return before < 0 || after < 0 ? "n/a" : Math.round((after - before) / unit / IDLE_GROUPS * 1000) / 1000.0;
    }

    /**
     * Waits until the groups of the last run have left (this proxy: their meters gone; another server: its threads
     * back to where they were), so the next run measures its own groups only; a server that says neither waits out
     * the default subscription_timeout.
     */
    private static void awaitGroupsGone(BenchContext ctx, ProcessStats.Sample baseline) throws InterruptedException {
        if (baseline.groupTopics() < 0 && baseline.osThreads() < 0) {
            Thread.sleep(Duration.ofSeconds(20));
            return;
        }
        long end = System.nanoTime() + GROUPS_LEAVE.toNanos();
        while (System.nanoTime() < end) {
            ProcessStats.Sample s = ctx.stats.sample();
            if (baseline.groupTopics() >= 0 ? s.groupTopics() == 0 : s.osThreads() <= baseline.osThreads() + 4) {
                // this proxy's meters go as a group's topics expire; its member closes right after (Kafka's leave)
                Thread.sleep(baseline.groupTopics() >= 0 ? 2_000 : 0);
                return;
            }
            Thread.sleep(500);
        }
        BenchContext.progress("  (the last run's groups had not all left after " + GROUPS_LEAVE.toSeconds() + " s)");
    }

    /** How a request was answered: the long poll's end, refused at the instance's limits, or anything else. */
    private enum Outcome {
        LONG_POLL_TIMEOUT, REFUSED, OTHER
    }

    /** The answers, one slot per request; complete() is called from client threads, once per request. */
    private static final class Answers {
        final long[] sent;
        final long[] latency;
        final Outcome[] outcome;
        final String[] status;
        final AtomicIntegerArray done;
        final CountDownLatch all;

        Answers(int n) {
            sent = new long[n];
            latency = new long[n];
            outcome = new Outcome[n];
            status = new String[n];
            done = new AtomicIntegerArray(n);
            all = new CountDownLatch(n);
        }

        void complete(int i, Outcome what, String text) {
            long now = System.nanoTime();
            if (done.compareAndSet(i, 0, 1)) {
                latency[i] = now - sent[i];
                outcome[i] = what;
                status[i] = text;
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

    private void measure(BenchContext ctx, String api, int n) throws Exception {
        Options o = ctx.options;
        int perGroup = Math.min(n, o.parkedPerGroup());
        String topic = ctx.newTopic("capacity-" + api);
        List<String> groups = new ArrayList<>();
        for (int g = 0; g < (n + perGroup - 1) / perGroup; g++) {
            groups.add(ctx.newGroup("parked-" + api));
        }
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
        try (Sender sender = api.equals("grpc") ? grpc(ctx, topic, answers, n) : rest(ctx, topic, answers)) {
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
        long refused = 0;
        long slowestRefusalNanos = 0;
        long answered = 0;
        Map<String, Integer> wrong = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            if (answers.done.get(i) == 0) {
                continue;
            }
            answered++;
            if (answers.outcome[i] == Outcome.REFUSED) {
                refused++;
                slowestRefusalNanos = Math.max(slowestRefusalNanos, answers.latency[i]);
            } else if (answers.outcome[i] == Outcome.OTHER) {
                wrong.merge(answers.status[i], 1, Integer::sum);
            } else {
                latency.record(answers.latency[i]);
                if (answers.latency[i] <= limit) {
                    ok++;
                } else {
                    late++;
                }
            }
        }
        String expectedAnswer = api.equals("grpc") ? "NOT_FOUND \"long polling timeout\"" : "408";
        Report.Row row = ctx.report.add(name(), key(api, n), label(api, n, perGroup)).latency(latency);
        row.note(String.format("%,d/%,d answered %s within %s", ok, n, expectedAnswer,
                io.kafkapixy.config.Durations.format(Duration.ofNanos(limit))));
        if (late > 0) {
            row.note(String.format("%,d LATE (slowest %.0f ms)", late, latency.maxMillis()));
        }
        if (refused > 0) {
            row.note(String.format("%,d refused (%s; slowest refusal %.0f ms)", refused,
                    api.equals("grpc") ? "RESOURCE_EXHAUSTED" : "429", slowestRefusalNanos / 1e6));
        }
        wrong.forEach((status, count) -> row.note(String.format("%,d answered %s", count, status)));
        if (!allAnswered) {
            row.note(String.format("%,d NOT ANSWERED", n - answered));
        }
        ProcessStats.Sample max = peak.get();
        row.note("peak " + max.describe());
        row.note("before " + before.describe());
        Map<String, Object> wrongJson = new LinkedHashMap<>(wrong);
        row.extra("parked", n).extra("groups", groups.size()).extra("perGroup", perGroup)
                .extra("answeredInTime", ok).extra("late", late).extra("refused", refused)
                .extra("slowestRefusalMs", slowestRefusalNanos / 1e6)
                .extra("unanswered", n - answered).extra("wrongAnswers", wrongJson)
                .extra("limitSeconds", limit / 1e9).extra("sendSeconds", sendSeconds)
                .extra("maxLatencyMs", latency.maxMillis()).extra("peak", max.toMap())
                .extra("before", before.toMap()).extra("proxyMemoryLimit", ctx.target.ownProxy()
                        ? PixyProcess.containerMemoryFlag() : "unknown (external)");
        ctx.progress(row);
    }

    private Sender grpc(BenchContext ctx, String topic, Answers answers, int n) {
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
                ConsNAckRq rq = ConsNAckRq.newBuilder().setTopic(topic)
                        .setGroup(group).setNoAck(true).build();
                answers.sent[i] = System.nanoTime();
                stubs.get(i % stubs.size()).withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS)
                        .consumeNAck(rq, new StreamObserver<>() {
                            @Override
                            public void onNext(ConsRs rs) {
                                answers.complete(i, Outcome.OTHER, "a message from an empty topic");
                            }

                            @Override
                            public void onError(Throwable t) {
                                Status s = Status.fromThrowable(t);
                                Outcome what = PixyGrpc.isLongPollTimeout(s) ? Outcome.LONG_POLL_TIMEOUT
                                        : s.getCode() == Status.Code.RESOURCE_EXHAUSTED ? Outcome.REFUSED
                                        : Outcome.OTHER;
                                answers.complete(i, what, s.getCode() + " \"" + s.getDescription() + "\"");
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

    private Sender rest(BenchContext ctx, String topic, Answers answers) {
        // its own client: its pool ends up holding one connection per request, closed with it
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        Duration timeout = ctx.options.longPoll().plusSeconds(10);
        return new Sender() {
            @Override
            public void send(int i, String group) {
                HttpRequest.Builder rq = ctx.target.request("/topics/" + topic + "/messages?group=" + group);
                answers.sent[i] = System.nanoTime();
                http.sendAsync(rq.timeout(timeout).GET().build(),
                        HttpResponse.BodyHandlers.ofString()).whenComplete((rs, e) -> {
                            if (e != null) {
                                Throwable cause = e instanceof CompletionException && e.getCause() != null
                                        ? e.getCause() : e;
                                answers.complete(i, Outcome.OTHER, ClosedLoop.describe(cause));
                            } else {
                                String body = rs.body() == null ? "" : rs.body().strip();
                                Outcome what = rs.statusCode() == 408 && body.contains(PixyGrpc.LONG_POLL_TIMEOUT)
                                        ? Outcome.LONG_POLL_TIMEOUT : rs.statusCode() == 429 ? Outcome.REFUSED
                                        : Outcome.OTHER;
                                answers.complete(i, what, "HTTP " + rs.statusCode() + " " + body.substring(0, Math.min(80,
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
