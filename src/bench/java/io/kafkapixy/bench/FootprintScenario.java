package io.kafkapixy.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import mailgun.kafkapixy.AckRq;
import mailgun.kafkapixy.ConsNAckRq;
import mailgun.kafkapixy.ConsRs;
import mailgun.kafkapixy.KafkaPixyGrpc;
import mailgun.kafkapixy.ProdRq;

/**
 * The footprint of a sidecar: a fresh proxy, started as the container starts it ({@link ChildProxy}: jvm.options and
 * the deployment's memory limit), one cluster with every default. Timed from the launch of the process to
 * {@code /health/ready} answering 200; then one short session per API (join a group, produce, take the message,
 * ack it); then, after {@value #SETTLE_SECONDS} s of idleness, its RSS, heap and threads. Twice when the JDK has
 * ahead-of-time caches (JDK 25: {@code -XX:AOTCacheOutput}): without one, then with one made by a training run of
 * the same session. Only with the bench's own proxy (an external server's start cannot be timed from here).
 */
final class FootprintScenario implements Scenario {

    static final String STARTUP = "footprint.startup";
    static final String STARTUP_AOT = "footprint.startup-aot";
    private static final int SETTLE_SECONDS = 5;

    @Override
    public String name() {
        return "footprint";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        if (!ctx.target.ownProxy()) {
            ctx.report.add(name(), STARTUP, "start-up and idle RSS").failed("only with the bench's own proxy");
            return;
        }
        Path dir = Path.of("target", "bench");
        measure(ctx, dir, STARTUP, "start-up, idle", List.of());
        if (Runtime.version().feature() < 25) {
            ctx.report.add(name(), STARTUP_AOT, "start-up with an AOT cache, idle")
                    .failed("needs JDK 25 (-XX:AOTCacheOutput); this is " + Runtime.version().feature());
            return;
        }
        Path cache = dir.resolve("kafka-pixy.aot").toAbsolutePath();
        Files.deleteIfExists(cache);
        try {
            train(ctx, dir, cache);
        } catch (Exception e) {
            ctx.report.add(name(), STARTUP_AOT, "start-up with an AOT cache, idle").failed("training: "
                    + ClosedLoop.describe(e));
            return;
        }
        measure(ctx, dir, STARTUP_AOT, "start-up with an AOT cache, idle", List.of("-XX:AOTCache=" + cache));
    }

    private void measure(BenchContext ctx, Path dir, String key, String label, List<String> flags) throws Exception {
        Report.Row row = ctx.report.add(name(), key, label);
        Ports ports = Ports.free();
        Path config = writeConfig(dir, ctx.target.bootstrap(), ports);
        try (ChildProxy child = ChildProxy.launch(ctx.options.jar(), config, dir.resolve(key + ".log"), flags)) {
            Duration ready = child.awaitOk(ports.rest, "/health/ready", Duration.ofSeconds(90));
            session(ctx, ports);
            TimeUnit.SECONDS.sleep(SETTLE_SECONDS);
            ProcessStats.Sample idle;
            try (ProcessStats stats = new ProcessStats(URI.create("http://127.0.0.1:" + ports.rest + "/metrics"),
                    OptionalLong.of(child.pid()))) {
                idle = stats.sample();
            }
            nativeMemory(child, dir.resolve(key + ".nmt.txt"));
            BenchContext.progress(String.format("  %s: ready in %,d ms; idle: %s", label, ready.toMillis(),
                    idle.describe()));
            row.note(String.format("ready in %,d ms", ready.toMillis())).note("idle: " + idle.describe())
                    .extra("readyMillis", ready.toMillis()).extra("idle", idle.toMap())
                    .extra("command", child.command());
        } catch (Exception e) {
            row.failed(ClosedLoop.describe(e));
        }
    }

    /**
     * With {@code BENCH_PROXY_FLAGS=-XX:NativeMemoryTracking=summary}, the JVM's own account of its memory at idle
     * (heap, class metadata, code, threads...) goes to {@code file}, to explain the RSS.
     */
    private static void nativeMemory(ChildProxy child, Path file) throws Exception {
        if (!child.command().contains("-XX:NativeMemoryTracking=")) {
            return;
        }
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(child.pid()), "VM.native_memory", "summary")
                .redirectErrorStream(true).redirectOutput(file.toFile()).start();
        p.waitFor(60, TimeUnit.SECONDS);
        BenchContext.progress("  native memory at idle: " + file);
    }

    /** One run with {@code -XX:AOTCacheOutput}: the JVM writes the cache as it exits (this takes a while). */
    private static void train(BenchContext ctx, Path dir, Path cache) throws Exception {
        Ports ports = Ports.free();
        Path config = writeConfig(dir, ctx.target.bootstrap(), ports);
        BenchContext.progress("  training run for the AOT cache");
        ChildProxy child = ChildProxy.launch(ctx.options.jar(), config, dir.resolve("footprint.training.log"),
                List.of("-XX:AOTCacheOutput=" + cache));
        try {
            child.awaitOk(ports.rest, "/health/ready", Duration.ofSeconds(90));
            session(ctx, ports);
        } finally {
            child.stop(Duration.ofMinutes(3));
        }
        if (!Files.isRegularFile(cache)) {
            throw new IllegalStateException("no AOT cache written; see " + dir.resolve("footprint.training.log"));
        }
    }

    /** Per API: join a group (the long poll ends empty), produce, take that message, ack it. */
    private static void session(BenchContext ctx, Ports ports) throws Exception {
        String topic = ctx.newTopic("footprint");
        String group = ctx.newGroup("footprint");
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            URI messages = URI.create("http://127.0.0.1:" + ports.rest + "/topics/" + topic + "/messages");
            expect(http, HttpRequest.newBuilder(URI.create(messages + "?group=" + group + "-rest")).GET(), 408);
            expect(http, HttpRequest.newBuilder(URI.create(messages + "?sync")).header("Content-Type", "text/plain")
                    .POST(HttpRequest.BodyPublishers.ofString("footprint")), 200);
            expect(http, HttpRequest.newBuilder(URI.create(messages + "?group=" + group + "-rest")).GET(), 200);
        }
        ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", ports.grpc).usePlaintext().build();
        try {
            var stub = KafkaPixyGrpc.newBlockingStub(channel);
            ConsNAckRq consume = ConsNAckRq.newBuilder().setTopic(topic).setGroup(group + "-grpc").setNoAck(true)
                    .build();
            try {
                stub.withDeadlineAfter(60, TimeUnit.SECONDS).consumeNAck(consume);
                throw new IllegalStateException("a new group was handed a message produced before it joined");
            } catch (StatusRuntimeException e) {
                if (!PixyGrpc.isLongPollTimeout(e.getStatus())) {
                    throw e;
                }
            }
            stub.withDeadlineAfter(30, TimeUnit.SECONDS).produce(ProdRq.newBuilder().setTopic(topic)
                    .setKeyUndefined(true).setMessage(ByteString.copyFromUtf8("footprint")).build());
            ConsRs rs = stub.withDeadlineAfter(60, TimeUnit.SECONDS).consumeNAck(consume);
            stub.withDeadlineAfter(30, TimeUnit.SECONDS).ack(AckRq.newBuilder().setTopic(topic)
                    .setGroup(group + "-grpc").setPartition(rs.getPartition()).setOffset(rs.getOffset()).build());
        } finally {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    private static void expect(HttpClient http, HttpRequest.Builder rq, int status) throws Exception {
        HttpResponse<String> rs = http.send(rq.timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (rs.statusCode() != status) {
            throw PixyRest.unexpected(rs);
        }
    }

    /** One cluster, every default but the addresses. */
    private static Path writeConfig(Path dir, String bootstrap, Ports ports) throws Exception {
        return ChildProxy.writeDefaultConfig(dir.resolve("footprint.yaml"), bootstrap, ports.grpc, ports.rest);
    }

    private record Ports(int rest, int grpc) {
        static Ports free() throws Exception {
            int[] ports = io.kafkapixy.testing.PixyProcess.freePorts(2);
            return new Ports(ports[0], ports[1]);
        }
    }
}
