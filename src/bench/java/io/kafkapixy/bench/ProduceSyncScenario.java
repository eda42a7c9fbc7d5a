package io.kafkapixy.bench;

import java.util.function.Function;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Synchronous produce, one 1 KiB message per request, at concurrency 1, 16 and 64: over gRPC, over REST, and the
 * baseline, a raw KafkaProducer shared by all workers (as the proxy shares one) waiting for each send. Each run
 * writes a fresh topic; the three kinds alternate per concurrency so a drifting machine biases none of them.
 */
final class ProduceSyncScenario implements Scenario {

    static final int[] CONCURRENCY = {1, 16, 64};

    @Override
    public String name() {
        return "produce-sync";
    }

    static String key(String api, int concurrency) {
        return "produce-sync." + api + ".c" + concurrency;
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        try (KafkaProducer<byte[], byte[]> raw = ctx.kafka.producer()) {
            for (int c : CONCURRENCY) {
                String rawKey = key("raw", c);
                run(ctx, rawKey, "raw KafkaProducer sync c=" + c, null, c, topic -> () -> {
                    raw.send(new ProducerRecord<>(topic, ctx.payloads.bytes())).get();
                    return ClosedLoop.Outcome.OK;
                });
                run(ctx, key("grpc", c), "gRPC sync c=" + c, rawKey, c, topic -> () -> {
                    ctx.grpc.produce(topic, ctx.payloads.byteString(), false);
                    return ClosedLoop.Outcome.OK;
                });
                run(ctx, key("rest", c), "REST sync c=" + c, rawKey, c, topic -> () -> {
                    ctx.rest.produce(topic, ctx.payloads.bytes(), true);
                    return ClosedLoop.Outcome.OK;
                });
            }
        }
    }

    private void run(BenchContext ctx, String key, String label, String baseline, int concurrency,
                     Function<String, ClosedLoop.Worker> worker) throws Exception {
        String topic = ctx.newTopic("sync");
        ClosedLoop.Result result = ctx.loop(concurrency).run(i -> worker.apply(topic));
        Report.Row row = ctx.report.add(name(), key, label).result(result);
        if (baseline != null) {
            row.baseline(baseline);
            ctx.report.row(baseline).filter(b -> b.latency != null && b.latency.count() > 0)
                    .ifPresent(b -> row.note(String.format("p99 %+.2f ms vs raw", row.p(99) - b.p(99))));
        }
        ctx.progress(row);
    }
}
