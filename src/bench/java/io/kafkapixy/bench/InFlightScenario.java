package io.kafkapixy.bench;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What reading {@code /inflight} costs the traffic: gRPC consume+ack at concurrency 16 (the messages out and unacked
 * are what the copy holds), with nobody reading it and with a reader asking every {@link #READ_EVERY_MS} ms, ten
 * times the page's own refresh, in turn, {@link #ROUNDS} times. Both rows report the proxy's CPU per message; the
 * second also how long the answers took and how large they were. Only against the bench's own proxy.
 */
final class InFlightScenario implements Scenario {

    static final long READ_EVERY_MS = 100;
    static final int ROUNDS = 2;

    @Override
    public String name() {
        return "inflight";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        if (!ctx.target.ownProxy()) {
            ctx.report.add(name(), "inflight.skipped", "/inflight").failed("only against the bench's own proxy");
            return;
        }
        FilledTopic topic = ctx.filledTopic();
        // the two kinds alternate, twice, so that neither gains from coming later (a warmer JIT, a hotter cache)
        for (int round = 1; round <= ROUNDS; round++) {
            ClosedLoop.Result quiet = ConsumeRuns.grpc(ctx, topic,
                    ConsumeRuns.freshGroup(ctx, topic, "inflight-none-" + round), 16);
            Report.Row quietRow = ConsumeRuns.record(ctx, name(), "inflight.none.grpc.c16." + round,
                    "gRPC consume+ack c=16, nobody reading /inflight (" + round + ")", quiet);
            ctx.progress(quietRow);

            Reader reader = new Reader(ctx);
            Thread thread = Thread.ofPlatform().name("inflight-reader").daemon().start(reader);
            ClosedLoop.Result read;
            try {
                read = ConsumeRuns.grpc(ctx, topic, ConsumeRuns.freshGroup(ctx, topic, "inflight-read-" + round), 16);
            } finally {
                reader.stop.set(true);
                thread.join(Duration.ofSeconds(30));
            }
            Report.Row readRow = ConsumeRuns.record(ctx, name(), "inflight.read.grpc.c16." + round,
                    "gRPC consume+ack c=16, /inflight read every " + READ_EVERY_MS + " ms (" + round + ")", read);
            readRow.note(String.format("%,d reads, p50 %.2f ms, p99 %.2f ms, %,d bytes each on average%s",
                    reader.latency.count(), reader.latency.millis(50), reader.latency.millis(99),
                    reader.latency.count() == 0 ? 0 : reader.bytes.get() / reader.latency.count(),
                    reader.failures.get() > 0 ? "; " + reader.failures.get() + " failed" : ""));
            if (quiet.rate() > 0) {
                readRow.note(String.format("%.2fx the rate of the run before, with no reader",
                        read.rate() / quiet.rate()));
            }
            ctx.progress(readRow);
        }
    }

    /** Reads {@code /inflight} every {@link #READ_EVERY_MS} ms until stopped, timing each answer. */
    private static final class Reader implements Runnable {

        final AtomicBoolean stop = new AtomicBoolean();
        final LatencyRecorder latency = new LatencyRecorder();
        final AtomicLong bytes = new AtomicLong();
        final AtomicLong failures = new AtomicLong();
        private final BenchContext ctx;
        private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

        Reader(BenchContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void run() {
            HttpRequest rq = ctx.target.request("/inflight").timeout(Duration.ofSeconds(10))
                    .GET().build();
            while (!stop.get()) {
                long start = System.nanoTime();
                try {
                    HttpResponse<byte[]> rs = http.send(rq, HttpResponse.BodyHandlers.ofByteArray());
                    if (rs.statusCode() == 200) {
                        latency.record(System.nanoTime() - start);
                        bytes.addAndGet(rs.body().length);
                    } else {
                        failures.incrementAndGet();
                    }
                    Thread.sleep(READ_EVERY_MS);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    failures.incrementAndGet();
                }
            }
        }
    }
}
