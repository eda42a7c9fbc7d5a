package io.kafkapixy.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.grpc.stub.StreamObserver;
import io.kafkapixy.stream.v1.PixyStreamGrpc;
import io.kafkapixy.stream.v1.ProduceRequest;
import io.kafkapixy.stream.v1.ProduceResponse;

/**
 * Streaming produce ({@code kafkapixy.stream.v1.PixyStream/Produce}) over {@value #WINDOW}-message windows, with 1 and
 * 4 streams: each stream's sender keeps up to {@value #WINDOW} messages unanswered (the server's default limit), and
 * a message's latency is from its send to its answer. Compared with the unary gRPC sync produce at 64 calls and the
 * raw KafkaProducer's async rate of the same run. Only the bench's own proxy serves this service.
 */
final class StreamProduceScenario implements Scenario {

    static final int WINDOW = 1024;
    static final int[] STREAMS = {1, 4};

    @Override
    public String name() {
        return "stream-produce";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        if (ctx.options.external()) {
            System.err.println("stream-produce: skipped, an external server has no streaming service");
            return;
        }
        for (int streams : STREAMS) {
            String topic = ctx.newTopic("stream");
            ClosedLoop.Result result = run(ctx, topic, streams);
            Report.Row row = ctx.report.add(name(), "stream-produce.s" + streams,
                    "gRPC stream produce, " + streams + " stream" + (streams > 1 ? "s" : "") + " x " + WINDOW
                    + " in flight").result(result).baseline(ProduceSyncScenario.key("grpc", 64));
            ctx.report.row("produce-async.raw.landed").filter(raw -> raw.rate > 0).ifPresent(raw -> row.note(
                    String.format("%.0f%% of raw async", 100 * result.rate() / raw.rate)));
            ctx.progress(row);
        }
    }

    private static ClosedLoop.Result run(BenchContext ctx, String topic, int streams) throws Exception {
        long start = System.nanoTime();
        long measureStart = start + ctx.options.warmup().toNanos();
        long deadline = measureStart + ctx.options.duration().toNanos();
        AtomicLong ok = new AtomicLong();
        AtomicLong totalOk = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        LatencyRecorder latency = new LatencyRecorder();
        List<Thread> senders = new ArrayList<>();
        List<CompletableFuture<Void>> ends = new ArrayList<>();
        for (int s = 0; s < streams; s++) {
            Semaphore window = new Semaphore(WINDOW);
            Map<Long, Long> sentAt = new ConcurrentHashMap<>();
            CompletableFuture<Void> end = new CompletableFuture<>();
            ends.add(end);
            StreamObserver<ProduceRequest> requests = PixyStreamGrpc.newStub(ctx.channel())
                    .produce(new StreamObserver<>() {
                        @Override
                        public void onNext(ProduceResponse rs) {
                            long now = System.nanoTime();
                            Long sent = sentAt.remove(rs.getId());
                            window.release();
                            if (rs.getCode() != 0) {
                                errors.incrementAndGet();
                                firstError.compareAndSet(null, rs.getCode() + " " + rs.getError());
                                return;
                            }
                            totalOk.incrementAndGet();
                            if (sent != null && sent >= measureStart && now <= deadline) {
                                ok.incrementAndGet();
                                synchronized (latency) {
                                    latency.record(now - sent);
                                }
                            }
                        }

                        @Override
                        public void onError(Throwable t) {
                            firstError.compareAndSet(null, String.valueOf(t));
                            end.complete(null);
                        }

                        @Override
                        public void onCompleted() {
                            end.complete(null);
                        }
                    });
            senders.add(Thread.ofPlatform().daemon().name("stream-" + s).start(() -> {
                long id = 0;
                try {
                    while (System.nanoTime() < deadline) {
                        if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                            continue;
                        }
                        sentAt.put(id, System.nanoTime());
                        synchronized (requests) {
                            requests.onNext(ProduceRequest.newBuilder().setId(id++).setTopic(topic)
                                    .setKeyUndefined(true).setMessage(ctx.payloads.byteString()).build());
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    requests.onCompleted();
                }
            }));
        }
        long wait = measureStart - System.nanoTime();
        if (wait > 0) {
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(wait));
        }
        CpuMeter.Snapshot cpuStart = ctx.cpu.snapshot();
        wait = deadline - System.nanoTime();
        if (wait > 0) {
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(wait));
        }
        CpuMeter.Snapshot cpuEnd = ctx.cpu.snapshot();
        for (Thread t : senders) {
            t.join();
        }
        for (CompletableFuture<Void> end : ends) {
            end.get(60, TimeUnit.SECONDS);
        }
        double seconds = (deadline - measureStart) / 1e9;
        return new ClosedLoop.Result(streams, ok.get(), 0, errors.get(), totalOk.get(), seconds, latency,
                firstError.get(), false, CpuMeter.between(cpuStart, cpuEnd));
    }
}
