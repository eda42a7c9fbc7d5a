package io.kafkapixy.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import mailgun.kafkapixy.ConsNAckRq;
import mailgun.kafkapixy.ConsRs;
import mailgun.kafkapixy.KafkaPixyGrpc;

/**
 * Groups arriving at once at a cold instance, as after a deploy: a fresh proxy (started as the container starts it,
 * {@link ChildProxy}: jvm.options under the Deployment's 256 MiB; every default, so {@code long_polling_timeout} 3 s and
 * {@code limits.max_groups} {@value #GROUPS}), and the first client's new channel sends {@value #PER_GROUP} gRPC
 * {@code ConsumeNAck} long polls for each of {@value #GROUPS} new groups at once, on an empty topic. Then the same on
 * another fresh proxy with {@value #REST} REST long polls of the same groups sent beside them. Every call must be
 * answered "long polling timeout" (NOT_FOUND / 408) within {@code long_polling_timeout} + {@value #LATE_MILLIS} ms
 * of being sent, and none refused. Reported: each API's answer times from each call's sending, the answers, and the
 * proxy's CPU over the run. Only with the bench's own proxy (it starts proxies of its own).
 *
 * <p>The clients are the bench's, in Java: before the runs their code is warmed against the bench's main proxy
 * ({@value #CLIENT_WARM_UP} refused calls per API), and the gRPC channel is connected before its calls go out, so
 * that what is timed is the fresh proxy, not a cold client (a client stack that is warm anyway, as Python's C core
 * is, sees the same).
 */
final class JoinBurstScenario implements Scenario {

    static final int GROUPS = 60;
    static final int PER_GROUP = 10;
    static final int REST = 1_000;
    static final long LATE_MILLIS = 500;
    private static final Duration LONG_POLL = Duration.ofSeconds(3);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    static final int CLIENT_WARM_UP = 2_000;

    @Override
    public String name() {
        return "join-burst";
    }

    static String key(boolean withRest) {
        return withRest ? "join-burst.grpc-with-rest" : "join-burst.grpc";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        if (ctx.target.ownProxy()) {
            warmClients(ctx);
        }
        for (boolean withRest : List.of(false, true)) {
            String label = GROUPS + " new groups x " + PER_GROUP + " gRPC long polls at once, cold"
                           + (withRest ? ", " + REST + " REST long polls beside" : "");
            Report.Row row = ctx.report.add(name(), key(withRest), label);
            if (!ctx.target.ownProxy()) {
                row.failed("only with the bench's own proxy");
                continue;
            }
            try {
                measure(ctx, row, label, withRest);
            } catch (Exception e) {
                row.failed(ClosedLoop.describe(e));
            }
        }
    }

    private void measure(BenchContext ctx, Report.Row row, String label, boolean withRest) throws Exception {
        Path dir = Path.of("target", "bench");
        int[] ports = io.kafkapixy.testing.PixyProcess.freePorts(2);
        int rest = ports[0];
        int grpc = ports[1];
        Path config = ChildProxy.writeDefaultConfig(dir.resolve("join-burst.yaml"), ctx.target.bootstrap(), grpc,
                rest);
        String topic = ctx.newTopic("join-burst");
        String prefix = ctx.newGroup("join-burst");
        try (ChildProxy child = ChildProxy.launch(ctx.options.jar(), config, dir.resolve(key(withRest) + ".log"),
                List.of())) {
            child.awaitOk(rest, "/health/ready", Duration.ofSeconds(90));
            CpuMeter cpu = new CpuMeter(OptionalLong.of(child.pid()));
            CpuMeter.Snapshot before = cpu.snapshot();
            List<CompletableFuture<Answer>> restAnswers = withRest ? restPolls(rest, topic, prefix) : List.of();
            List<CompletableFuture<Answer>> grpcAnswers = grpcPolls(grpc, topic, prefix);
            Answers g = Answers.of(grpcAnswers);
            Answers r = Answers.of(restAnswers);
            CpuMeter.Usage used = CpuMeter.between(before, cpu.snapshot());
            String text = "gRPC " + g.describe() + (withRest ? "; REST " + r.describe() : "") + "; "
                          + used.describe();
            BenchContext.progress("  " + label + ": " + text);
            row.note(text).extra("grpc", g.toMap()).extra("rest", r.toMap()).extra("command", child.command());
            long limit = LONG_POLL.toMillis() + LATE_MILLIS;
            row.extra("limitMillis", limit).extra("allInTime",
                    g.allLongPollsWithin(limit) && (!withRest || r.allLongPollsWithin(limit)));
        }
    }

    /** The bench's gRPC and REST client code, run against the main proxy with requests it refuses at once. */
    private static void warmClients(BenchContext ctx) throws Exception {
        ManagedChannel channel = ctx.target.newChannel();
        try {
            KafkaPixyGrpc.KafkaPixyStub stub = KafkaPixyGrpc.newStub(channel);
            List<CompletableFuture<Answer>> refused = new ArrayList<>();
            for (int i = 0; i < CLIENT_WARM_UP; i++) {
                refused.add(call(stub, ConsNAckRq.newBuilder().setTopic("").setGroup("").build()));
            }
            Answers.of(refused);
        } finally {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            List<CompletableFuture<HttpResponse<String>>> pings = new ArrayList<>();
            for (int i = 0; i < CLIENT_WARM_UP; i++) {
                pings.add(http.sendAsync(ctx.target.request("/topics/-/messages").GET().build(),
                        HttpResponse.BodyHandlers.ofString()));
                if (pings.size() % 100 == 0) {
                    CompletableFuture.allOf(pings.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                }
            }
            CompletableFuture.allOf(pings.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        }
    }

    /** When a call was sent and how it ended, as its client saw it. */
    private record Answer(long sentNanos, long answeredNanos, String outcome) {
        long millis() {
            return TimeUnit.NANOSECONDS.toMillis(answeredNanos - sentNanos);
        }
    }

    private record Answers(List<Answer> all) {

        static Answers of(List<CompletableFuture<Answer>> calls) throws Exception {
            List<Answer> all = new ArrayList<>();
            for (CompletableFuture<Answer> c : calls) {
                all.add(c.get(CALL_TIMEOUT.toSeconds() + 30, TimeUnit.SECONDS));
            }
            return new Answers(all);
        }

        boolean allLongPollsWithin(long millis) {
            return all.stream().allMatch(a -> a.outcome.equals("long polling timeout") && a.millis() <= millis);
        }

        Map<String, Object> toMap() {
            Map<String, Integer> outcomes = new TreeMap<>();
            all.forEach(a -> outcomes.merge(a.outcome, 1, Integer::sum));
            long[] ms = all.stream().mapToLong(Answer::millis).sorted().toArray();
            Map<String, Object> m = new TreeMap<>();
            m.put("outcomes", outcomes);
            if (ms.length > 0) {
                m.put("minMillis", ms[0]);
                m.put("p50Millis", ms[ms.length / 2]);
                m.put("p99Millis", ms[Math.min(ms.length - 1, (int) Math.ceil(ms.length * 0.99) - 1)]);
                m.put("maxMillis", ms[ms.length - 1]);
            }
            return m;
        }

        String describe() {
            Map<String, Object> m = toMap();
            return m.get("outcomes") + (m.containsKey("maxMillis") ? String.format(
                    " answered after min %,d / p50 %,d / p99 %,d / max %,d ms", m.get("minMillis"),
                    m.get("p50Millis"), m.get("p99Millis"), m.get("maxMillis")) : "");
        }
    }

    /**
     * Every call at once on one new channel, connected first, the groups one after the other as a client's loop
     * sends them.
     */
    private static List<CompletableFuture<Answer>> grpcPolls(int port, String topic, String prefix)
            throws InterruptedException {
        ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        long connectBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (channel.getState(true) != io.grpc.ConnectivityState.READY && System.nanoTime() < connectBy) {
            TimeUnit.MILLISECONDS.sleep(10);
        }
        KafkaPixyGrpc.KafkaPixyStub stub = KafkaPixyGrpc.newStub(channel);
        List<CompletableFuture<Answer>> calls = new ArrayList<>();
        for (int g = 0; g < GROUPS; g++) {
            ConsNAckRq rq = ConsNAckRq.newBuilder().setTopic(topic).setGroup(prefix + "-" + g).setNoAck(true).build();
            for (int i = 0; i < PER_GROUP; i++) {
                calls.add(call(stub, rq));
            }
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
                .whenComplete((v, e) -> channel.shutdownNow());
        return calls;
    }

    private static CompletableFuture<Answer> call(KafkaPixyGrpc.KafkaPixyStub stub, ConsNAckRq rq) {
        CompletableFuture<Answer> answer = new CompletableFuture<>();
        long sent = System.nanoTime();
        stub.withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).consumeNAck(rq, new StreamObserver<>() {
            @Override
            public void onNext(ConsRs rs) {
                answer.complete(new Answer(sent, System.nanoTime(), "a message"));
            }

            @Override
            public void onError(Throwable t) {
                Status s = Status.fromThrowable(t);
                answer.complete(new Answer(sent, System.nanoTime(), PixyGrpc.isLongPollTimeout(s)
                        ? "long polling timeout" : s.getCode().name()));
            }

            @Override
            public void onCompleted() {
            }
        });
        return answer;
    }

    /** One connection per poll (HTTP/1.1), the groups in turn, sent at {@value CapacityScenario#RATE_PER_SECOND}/s. */
    private static List<CompletableFuture<Answer>> restPolls(int port, String topic, String prefix)
            throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        List<CompletableFuture<Answer>> calls = new ArrayList<>();
        long gapNanos = TimeUnit.SECONDS.toNanos(1) / CapacityScenario.RATE_PER_SECOND;
        long next = System.nanoTime();
        for (int i = 0; i < REST; i++) {
            URI uri = URI.create("http://127.0.0.1:" + port + "/topics/" + topic + "/messages?noAck&group=" + prefix
                                 + "-" + (i % GROUPS));
            long sent = System.nanoTime();
            calls.add(http.sendAsync(HttpRequest.newBuilder(uri).timeout(CALL_TIMEOUT).GET().build(),
                            HttpResponse.BodyHandlers.ofString())
                    .handle((rs, e) -> new Answer(sent, System.nanoTime(), e != null ? e.getClass().getSimpleName()
                            : rs.statusCode() == 408 ? "long polling timeout" : "HTTP " + rs.statusCode())));
            next += gapNanos;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> http.close());
        return calls;
    }
}
