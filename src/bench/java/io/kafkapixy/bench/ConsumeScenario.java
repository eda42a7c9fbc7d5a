package io.kafkapixy.bench;

import java.time.Duration;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Consume from a pre-filled topic: gRPC consume + explicit ack at concurrency 1 and 16, streaming consume + ack with
 * 1 and 4 streams, and REST auto-ack at concurrency 1 and 16, against
 * the baseline of a raw KafkaConsumer reading the same topic (one consumer, assigned all partitions, no group).
 */
final class ConsumeScenario implements Scenario {

    static final int[] CONCURRENCY = {1, 16};
    static final String RAW = "consume.raw";
    /** Streaming Consume rows (not against an external server, which has no streaming service). */
    static final int[] STREAMS = {1, 4};

    @Override
    public String name() {
        return "consume";
    }

    static String key(String api, int concurrency) {
        return "consume." + api + ".c" + concurrency;
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        FilledTopic topic = ctx.filledTopic();
        rawRead(ctx, topic);
        for (int c : CONCURRENCY) {
            ClosedLoop.Result r = ConsumeRuns.grpc(ctx, topic, ConsumeRuns.freshGroup(ctx, topic, "grpc-c" + c), c);
            Report.Row row = ConsumeRuns.record(ctx, name(), key("grpc", c), "gRPC consume+ack c=" + c, r)
                    .baseline(RAW);
            ctx.progress(row);
        }
        if (!ctx.options.external()) {
            for (int streams : STREAMS) {
                ClosedLoop.Result r = StreamConsumeRuns.run(ctx, topic,
                        ConsumeRuns.freshGroup(ctx, topic, "stream-s" + streams), streams);
                Report.Row row = ConsumeRuns.record(ctx, name(), "consume.stream.s" + streams, "gRPC stream consume+ack, "
                        + streams + " stream" + (streams > 1 ? "s" : "") + " x " + StreamConsumeRuns.CREDITS
                        + " credits", r).baseline(RAW);
                ctx.report.row(key("grpc", 16)).filter(unary -> unary.rate > 0).ifPresent(unary -> row.note(
                        String.format("%.1fx unary gRPC consume+ack c=16", r.rate() / unary.rate)));
                ctx.progress(row);
            }
        }
        for (int c : CONCURRENCY) {
            ClosedLoop.Result r = ConsumeRuns.rest(ctx, topic, ConsumeRuns.freshGroup(ctx, topic, "rest-c" + c), c);
            Report.Row row = ConsumeRuns.record(ctx, name(), key("rest", c), "REST auto-ack c=" + c, r)
                    .baseline(RAW);
            ctx.progress(row);
        }
    }

    /**
     * One raw consumer reading the topic from its start, as fast as it polls. It drains the topic far faster than
     * the proxy, so it starts over from the beginning whenever it reaches the end, to be measured for the whole
     * duration like the others (the data is in the page cache either way).
     */
    private void rawRead(BenchContext ctx, FilledTopic topic) {
        long warmup = ctx.options.warmup().toNanos();
        long duration = ctx.options.duration().toNanos();
        long read = 0;
        long readAtStart = -1;
        long measureStart = 0;
        long end;
        List<TopicPartition> partitions = RawKafka.partitions(topic.name());
        CpuMeter.Snapshot cpuAtStart = null;
        try (KafkaConsumer<byte[], byte[]> consumer = ctx.kafka.consumer()) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long start = System.nanoTime();
            long sinceRewind = 0;
            while (true) {
                long now = System.nanoTime();
                if (readAtStart < 0 && now - start >= warmup) {
                    readAtStart = read;
                    measureStart = now;
                    cpuAtStart = ctx.cpu.snapshot();
                }
                if (readAtStart >= 0 && now - measureStart >= duration) {
                    break;
                }
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                read += records.count();
                sinceRewind += records.count();
                if (sinceRewind >= topic.messages()) {
                    consumer.seekToBeginning(partitions);
                    sinceRewind = 0;
                }
            }
            end = System.nanoTime();
        }
        Report.Row row = ctx.report.add(name(), RAW, "raw KafkaConsumer");
        double seconds = (end - measureStart) / 1e9;
        row.rate((read - readAtStart) / seconds);
        row.seconds = seconds;
        row.count = read - readAtStart;
        row.cpu = CpuMeter.between(cpuAtStart, ctx.cpu.snapshot());
        row.note(String.format("%,d messages (the topic over again from its start at each end)", row.count));
        ctx.progress(row);
    }
}
