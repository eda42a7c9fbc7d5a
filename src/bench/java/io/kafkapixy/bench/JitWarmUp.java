package io.kafkapixy.bench;

import java.time.Duration;
import java.util.function.Function;

import mailgun.kafkapixy.ConsRs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Load that is never measured, before the first scenario: sync produce over gRPC, over REST and with the raw client,
 * then consume over gRPC (ConsumeNAck acking the previous message) and over REST (auto-ack) of what was produced, a
 * sixth of the time each at concurrency 16, and a sixth with one client producing over each API in turn (one call in
 * flight takes other branches: the producer's answer wakes the transport rather than joining a batch under way).
 * Against the bench's own proxy the single clients go on, each slice of {@link #SLICE} after a second of
 * {@link #BUSY} clients per API (contention and bigger batches take branches of their own again), until the proxy's
 * JIT compiler threads use under {@link #QUIET_CORES} of a core in a slice, at most {@link #QUIET_LIMIT}. A freshly
 * started JVM compiles its hot paths for tens of seconds and those compiler threads take cores from everything else
 * on this machine; without this the first scenario (the single-client latency runs) measured the proxy's JIT more
 * than the proxy (a gRPC c=1 row showed 0.66 cores of proxy CPU, most of it C2), and the c=64 rows still had 0.05
 * cores of it. Every row says how much JIT there was in its window when there was any. The per-run
 * {@code --warmup} still precedes every measured run.
 */
final class JitWarmUp {

    private static final int CONCURRENCY = 16;
    private static final int BUSY = 64;
    static final double QUIET_CORES = 0.02;
    static final Duration SLICE = Duration.ofSeconds(4);
    static final Duration QUIET_LIMIT = Duration.ofSeconds(90);

    private JitWarmUp() {
    }

    static void run(BenchContext ctx, Duration total) throws Exception {
        if (total.isZero() || total.isNegative()) {
            return;
        }
        BenchContext.progress("== JIT warm-up (" + total.toSeconds() + " s, not measured)");
        Duration slice = total.dividedBy(6);
        String topic = ctx.newTopic("warmup");
        try (KafkaProducer<byte[], byte[]> raw = ctx.kafka.producer()) {
            load(ctx, slice, topic, t -> () -> {
                ctx.grpc.produce(t, ctx.payloads.byteString(), false);
                return ClosedLoop.Outcome.OK;
            });
            load(ctx, slice, topic, t -> () -> {
                ctx.rest.produce(t, ctx.payloads.bytes(), true);
                return ClosedLoop.Outcome.OK;
            });
            load(ctx, slice, topic, t -> () -> {
                raw.send(new ProducerRecord<>(t, ctx.payloads.bytes())).get();
                return ClosedLoop.Outcome.OK;
            });
        }
        String grpcGroup = ctx.newGroup("warmup-grpc");
        ctx.kafka.startGroupAtBeginning(grpcGroup, topic);
        load(ctx, slice, topic, t -> new ClosedLoop.Worker() {
            private ConsRs last;

            @Override
            public ClosedLoop.Outcome call() {
                last = ctx.grpc.consumeNAck(last == null ? PixyGrpc.first(t, grpcGroup)
                        : PixyGrpc.next(t, grpcGroup, last)).orElse(null);
                return last == null ? ClosedLoop.Outcome.EMPTY : ClosedLoop.Outcome.OK;
            }

            @Override
            public void finish() {
                // an unacked message would keep the group (and a place of limits.max_groups) until ack_timeout
                if (last != null) {
                    ctx.grpc.ack(t, grpcGroup, last.getPartition(), last.getOffset());
                }
            }
        });
        String restGroup = ctx.newGroup("warmup-rest");
        ctx.kafka.startGroupAtBeginning(restGroup, topic);
        load(ctx, slice, topic, t -> () -> ctx.rest.consume(t, restGroup).isPresent() ? ClosedLoop.Outcome.OK
                : ClosedLoop.Outcome.EMPTY);
        Duration half = slice.dividedBy(2);
        singleClients(ctx, topic, half);
        untilCompiled(ctx);
    }

    /** One client producing over gRPC for {@code each}, then one over REST. */
    private static void singleClients(BenchContext ctx, String topic, Duration each) throws InterruptedException {
        clients(ctx, topic, 1, each);
    }

    /** {@code concurrency} clients producing over gRPC for {@code each}, then as many over REST. */
    private static void clients(BenchContext ctx, String topic, int concurrency, Duration each)
            throws InterruptedException {
        new ClosedLoop(concurrency, each, Duration.ofMillis(1), ctx.cpu).run(i -> () -> {
            ctx.grpc.produce(topic, ctx.payloads.byteString(), false);
            return ClosedLoop.Outcome.OK;
        });
        new ClosedLoop(concurrency, each, Duration.ofMillis(1), ctx.cpu).run(i -> () -> {
            ctx.rest.produce(topic, ctx.payloads.bytes(), true);
            return ClosedLoop.Outcome.OK;
        });
    }

    /**
     * Busy, then single clients until the proxy's compiler threads are quiet (see the class comment); says how long it
     * took. Each slice writes a topic of its own, as every measured run does: a topic's first messages take branches
     * of their own (its metadata looked up, a call that may wait), and code compiled without them is thrown away and
     * compiled again when they come, which a run would otherwise measure.
     */
    private static void untilCompiled(BenchContext ctx) throws Exception {
        if (!ctx.target.ownProxy()) {
            return;
        }
        long start = System.nanoTime();
        double compiling;
        do {
            String topic = ctx.newTopic("warmup");
            long before = ctx.cpu.proxyCompilerNanos();
            long sliceStart = System.nanoTime();
            clients(ctx, topic, BUSY, Duration.ofSeconds(1));
            singleClients(ctx, topic, SLICE.dividedBy(2));
            long after = ctx.cpu.proxyCompilerNanos();
            compiling = before < 0 || after < 0 ? 0 : (after - before) / (double) (System.nanoTime() - sliceStart);
        } while (compiling >= QUIET_CORES && System.nanoTime() - start < QUIET_LIMIT.toNanos());
        BenchContext.progress(String.format("   single and busy clients until the proxy's JIT went quiet: %.0f s%s",
                (System.nanoTime() - start) / 1e9, compiling >= QUIET_CORES
                        ? String.format(" (gave up, compiler at %.2f cores)", compiling) : ""));
    }

    private static void load(BenchContext ctx, Duration slice, String topic,
                             Function<String, ClosedLoop.Worker> worker) throws InterruptedException {
        new ClosedLoop(CONCURRENCY, slice, Duration.ofMillis(1), ctx.cpu).run(i -> worker.apply(topic));
    }
}
