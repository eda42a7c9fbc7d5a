package io.kafkapixy.bench;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Asynchronous produce at concurrency {@value #CONCURRENCY}: how fast the proxy accepts messages (answers 200 {} /
 * ProdRs{-1,-1}) and how fast they land in Kafka, against a raw KafkaProducer's send() without waiting. What landed
 * is read from Kafka's end offsets with kafka-clients: at the start of the measured window, then after it until
 * every accepted message is there or the count stops growing. A shortfall is reported as missing messages.
 */
final class ProduceAsyncScenario implements Scenario {

    static final int CONCURRENCY = 16;
    /** The count has stopped growing when it has not moved for this long. */
    private static final long SETTLED_NANOS = 3_000_000_000L;
    private static final long MAX_DRAIN_NANOS = 120_000_000_000L;

    @Override
    public String name() {
        return "produce-async";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        try (KafkaProducer<byte[], byte[]> raw = ctx.kafka.producer()) {
            AtomicLong rawFailures = new AtomicLong();
            run(ctx, "raw", "raw KafkaProducer async", topic -> () -> {
                raw.send(new ProducerRecord<>(topic, ctx.payloads.bytes()), (md, e) -> {
                    if (e != null) {
                        rawFailures.incrementAndGet();
                    }
                });
                return ClosedLoop.Outcome.OK;
            });
            if (rawFailures.get() > 0) {
                ctx.report.row("produce-async.raw.landed").ifPresent(r -> r.note(rawFailures.get()
                                                                                  + " raw sends failed"));
            }
        }
        run(ctx, "grpc", "gRPC async", topic -> () -> {
            ctx.grpc.produce(topic, ctx.payloads.byteString(), true);
            return ClosedLoop.Outcome.OK;
        });
        run(ctx, "rest", "REST async", topic -> () -> {
            ctx.rest.produce(topic, ctx.payloads.bytes(), false);
            return ClosedLoop.Outcome.OK;
        });
    }

    private void run(BenchContext ctx, String api, String label,
                     Function<String, ClosedLoop.Worker> worker) throws Exception {
        String topic = ctx.newTopic("async");
        long before = ctx.kafka.endOffsets(topic);
        AtomicLong landedAtStart = new AtomicLong(-1);
        AtomicReference<Exception> sampleFailure = new AtomicReference<>();
        ClosedLoop loop = ctx.loop(CONCURRENCY).atMeasureStart(() -> {
            try {
                landedAtStart.set(ctx.kafka.endOffsets(topic));
            } catch (Exception e) {
                sampleFailure.set(e);
            }
        });
        ClosedLoop.Result accepted = loop.run(i -> worker.apply(topic));
        long expected = before + accepted.totalOk();
        long landed = ctx.kafka.endOffsets(topic);
        long lastChange = System.nanoTime();
        long giveUp = lastChange + MAX_DRAIN_NANOS;
        while (landed < expected && System.nanoTime() - lastChange < SETTLED_NANOS && System.nanoTime() < giveUp) {
            Thread.sleep(100);
            long now = ctx.kafka.endOffsets(topic);
            if (now != landed) {
                landed = now;
                lastChange = System.nanoTime();
            }
        }
        String acceptedKey = "produce-async." + api + ".accepted";
        String landedKey = "produce-async." + api + ".landed";
        Report.Row acceptedRow = ctx.report.add(name(), acceptedKey, label + " c=" + CONCURRENCY + ": accepted")
                .result(accepted);
        Report.Row landedRow = ctx.report.add(name(), landedKey, label + " c=" + CONCURRENCY + ": landed");
        if (!api.equals("raw")) {
            acceptedRow.baseline("produce-async.raw.accepted");
            landedRow.baseline("produce-async.raw.landed");
        }
        if (landedAtStart.get() >= 0) {
            double seconds = (lastChange - loop.measureStartNanos()) / 1e9;
            landedRow.rate((landed - landedAtStart.get()) / seconds);
        } else {
            landedRow.note("end offsets unreadable at the window's start: "
                           + (sampleFailure.get() == null ? "the run ended first" : sampleFailure.get()));
        }
        long acceptedAll = accepted.totalOk();
        long landedAll = landed - before;
        landedRow.extra("acceptedTotal", acceptedAll).extra("landedTotal", landedAll)
                .extra("drainSeconds", Math.max(0, (lastChange - loop.measureStartNanos()) / 1e9
                                                   - ctx.options.duration().toMillis() / 1000.0));
        landedRow.note(landedAll >= acceptedAll
                ? String.format("all %,d accepted landed", acceptedAll)
                : String.format("%,d of %,d accepted MISSING", acceptedAll - landedAll, acceptedAll));
        ctx.progress(acceptedRow);
        ctx.progress(landedRow);
    }
}
