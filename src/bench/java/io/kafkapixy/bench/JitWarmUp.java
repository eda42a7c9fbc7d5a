package io.kafkapixy.bench;

import java.time.Duration;
import java.util.function.Function;

import mailgun.kafkapixy.ConsRs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Load that is never measured, before the first scenario: sync produce over gRPC, over REST and with the raw client,
 * then consume over gRPC (ConsumeNAck acking the previous message) and over REST (auto-ack) of what was produced, a
 * fifth of the time each at concurrency 16. A freshly started JVM compiles its hot paths for tens of seconds and
 * those compiler threads take cores from everything else on this machine; without this the first scenario (the
 * single-client latency runs) measured the proxy's JIT more than the proxy. The per-run {@code --warmup} still
 * precedes every measured run.
 */
final class JitWarmUp {

    private static final int CONCURRENCY = 16;

    private JitWarmUp() {
    }

    static void run(BenchContext ctx, Duration total) throws Exception {
        if (total.isZero() || total.isNegative()) {
            return;
        }
        BenchContext.progress("== JIT warm-up (" + total.toSeconds() + " s, not measured)");
        Duration slice = total.dividedBy(5);
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
    }

    private static void load(BenchContext ctx, Duration slice, String topic,
                             Function<String, ClosedLoop.Worker> worker) throws InterruptedException {
        new ClosedLoop(CONCURRENCY, slice, Duration.ofMillis(1), ctx.cpu).run(i -> worker.apply(topic));
    }
}
