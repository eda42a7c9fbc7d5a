package io.kafkapixy.bench;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import mailgun.kafkapixy.ConsRs;

/**
 * Closed-loop consume runs through the proxy over a {@link FilledTopic}, each in a {@link #freshGroup} that starts
 * at the topic's beginning. A run stops early when the group has been given every message of the topic: its rate is then
 * over the time until that point.
 */
final class ConsumeRuns {

    private ConsumeRuns() {
    }

    /**
     * The canonical gRPC ConsumeNAck loop per worker: the first call {@code no_ack}, every later one acks the message
     * the previous call returned; after the run each worker acks its last message, so the group can be dropped.
     */
    static ClosedLoop.Result grpc(BenchContext ctx, FilledTopic topic, String group, int concurrency)
            throws Exception {
        return grpc(ctx, topic, group, ctx.loop(concurrency));
    }

    /** As {@link #grpc(BenchContext, FilledTopic, String, int)}, for {@code duration} from the start (a warm-up). */
    static ClosedLoop.Result grpc(BenchContext ctx, FilledTopic topic, String group, int concurrency,
                                  java.time.Duration duration) throws Exception {
        return grpc(ctx, topic, group, new ClosedLoop(concurrency, java.time.Duration.ZERO, duration, ctx.cpu));
    }

    private static ClosedLoop.Result grpc(BenchContext ctx, FilledTopic topic, String group, ClosedLoop loop)
            throws Exception {
        AtomicLong delivered = new AtomicLong();
        return loop.run(i -> new ClosedLoop.Worker() {
            private ConsRs last;

            @Override
            public ClosedLoop.Outcome call() {
                Optional<ConsRs> rs = ctx.grpc.consumeNAck(last == null ? PixyGrpc.first(topic.name(), group)
                        : PixyGrpc.next(topic.name(), group, last));
                if (rs.isEmpty()) {
                    // the ack rode on the request and was taken; nothing new to ack next time
                    last = null;
                    return ClosedLoop.Outcome.EMPTY;
                }
                last = rs.get();
                drained(loop, delivered, topic);
                return ClosedLoop.Outcome.OK;
            }

            @Override
            public void finish() {
                if (last != null) {
                    ctx.grpc.ack(topic.name(), group, last.getPartition(), last.getOffset());
                }
            }
        });
    }

    /** GET /topics/{t}/messages?group=g, which acks on delivery (auto-ack). */
    static ClosedLoop.Result rest(BenchContext ctx, FilledTopic topic, String group, int concurrency)
            throws Exception {
        return rest(ctx, topic, group, ctx.loop(concurrency));
    }

    /** As {@link #rest(BenchContext, FilledTopic, String, int)}, for {@code duration} from the start (a warm-up). */
    static ClosedLoop.Result rest(BenchContext ctx, FilledTopic topic, String group, int concurrency,
                                  java.time.Duration duration) throws Exception {
        return rest(ctx, topic, group, new ClosedLoop(concurrency, java.time.Duration.ZERO, duration, ctx.cpu));
    }

    private static ClosedLoop.Result rest(BenchContext ctx, FilledTopic topic, String group, ClosedLoop loop)
            throws Exception {
        AtomicLong delivered = new AtomicLong();
        return loop.run(i -> () -> {
            if (ctx.rest.consume(topic.name(), group).isEmpty()) {
                return ClosedLoop.Outcome.EMPTY;
            }
            drained(loop, delivered, topic);
            return ClosedLoop.Outcome.OK;
        });
    }

    /**
     * A new group whose committed offsets are the topic's oldest, so that the proxy, which starts a group without
     * offsets at the newest, reads the topic from its start. Kafka takes such commits only while the group has no
     * members: call before the group's first request.
     */
    static String freshGroup(BenchContext ctx, FilledTopic topic, String what) throws Exception {
        String group = ctx.newGroup(what);
        ctx.kafka.startGroupAtBeginning(group, topic.name());
        return group;
    }

    private static void drained(ClosedLoop loop, AtomicLong delivered, FilledTopic topic) {
        if (delivered.incrementAndGet() >= topic.messages()) {
            loop.stopEarly();
        }
    }

    /** The row of a consume run, saying when the topic ran dry (a short window is less precise). */
    static Report.Row record(BenchContext ctx, String scenario, String key, String label, ClosedLoop.Result r) {
        Report.Row row = ctx.report.add(scenario, key, label);
        if (r.seconds() <= 0) {
            return row.failed("the pre-filled topic (" + r.totalOk() + " messages) ran dry during the warm-up: "
                              + "raise --fill");
        }
        row.result(r);
        if (r.stoppedEarly()) {
            row.note(String.format("topic drained after %.1f s of the window (raise --fill for the full duration)",
                    r.seconds()));
        }
        if (r.empty() > 0) {
            row.note(r.empty() + " long polls timed out");
        }
        return row;
    }
}
