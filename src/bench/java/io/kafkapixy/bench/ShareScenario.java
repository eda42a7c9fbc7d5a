package io.kafkapixy.bench;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import jakarta.json.JsonObject;

/**
 * Share groups ({@code consumer.share_groups} of the bench's own proxy, see {@link Target}): the consume rows of the
 * classic mode over the same pre-filled topic (REST auto-ack c=16, gRPC consume+ack c=16, one stream), and the
 * scale-out of slow clients on a one-partition topic: clients that each take {@link #SLOW_CLIENT_MS} per message,
 * one of them and then {@link #SLOW_CLIENTS}, which a classic group cannot spread over one partition's acks without
 * holding its commit. Only against the bench's own proxy: the original has no share groups.
 */
final class ShareScenario implements Scenario {

    /** The groups the bench's proxy is told are share groups; each run uses one once (a fresh broker per run). */
    static final List<String> GROUPS = List.of("share-warm-rest", "share-warm-grpc", "share-rest-c16",
            "share-grpc-c16", "share-stream-s1", "share-slow-c1", "share-slow-c8");
    /**
     * Share-group consumption before the measured rows, not counted: the JIT warm-up before the first scenario runs
     * the classic paths only, and a share consumer's code compiling inside a measured window costs it up to half a core.
     */
    static final Duration WARM_UP = Duration.ofSeconds(15);
    /**
     * The burst row's window: a service scaling out under a backlog, {@link #SLOW_CLIENTS} new clients of the group one
     * slow client was reading, measured from their first request.
     */
    static final Duration BURST = Duration.ofSeconds(4);
    static final long SLOW_CLIENT_MS = 50;
    static final int SLOW_CLIENTS = 8;
    /** Messages of the one-partition topic: more than the slow clients take in a window. */
    static final long SLOW_FILL = 5_000;

    @Override
    public String name() {
        return "share";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        if (!ctx.target.ownProxy()) {
            ctx.report.add(name(), "share.skipped", "share groups").failed("only against the bench's own proxy");
            return;
        }
        FilledTopic topic = ctx.filledTopic();
        warmUp(ctx, topic);
        ctx.kafka.startShareGroupAtBeginning("share-rest-c16");
        ClosedLoop.Result rest = ConsumeRuns.rest(ctx, topic, "share-rest-c16", 16);
        row(ctx, "share.rest.c16", "share group: REST auto-ack c=16", rest, ConsumeScenario.key("rest", 16));

        ctx.kafka.startShareGroupAtBeginning("share-grpc-c16");
        ClosedLoop.Result grpc = ConsumeRuns.grpc(ctx, topic, "share-grpc-c16", 16);
        row(ctx, "share.grpc.c16", "share group: gRPC consume+ack c=16", grpc, ConsumeScenario.key("grpc", 16));

        ctx.kafka.startShareGroupAtBeginning("share-stream-s1");
        ClosedLoop.Result stream = StreamConsumeRuns.run(ctx, topic, "share-stream-s1", 1);
        row(ctx, "share.stream.s1", "share group: gRPC stream consume+ack, 1 stream x " + StreamConsumeRuns.CREDITS
                + " credits", stream, "consume.stream.s1");

        String slowTopic = ctx.newGroup("share-slow");
        ctx.kafka.createTopic(slowTopic, 1);
        ctx.kafka.fill(slowTopic, SLOW_FILL, ctx.payloads);
        ClosedLoop.Result one = slow(ctx, slowTopic, "share-slow-c1", 1);
        Report.Row oneRow = ctx.report.add(name(), "share.slow.c1", "share group: 1 slow client ("
                + SLOW_CLIENT_MS + " ms per message), one partition").result(one);
        ctx.progress(oneRow);
        ClosedLoop.Result burst = new ClosedLoop(SLOW_CLIENTS, Duration.ZERO, BURST, ctx.cpu)
                .run(i -> slowClient(ctx, slowTopic, "share-slow-c1"));
        Report.Row burstRow = ctx.report.add(name(), "share.burst.c8", "share group: " + SLOW_CLIENTS
                + " slow clients join the one client's group, their first " + BURST.toSeconds() + " s").result(burst);
        if (one.rate() > 0) {
            burstRow.note(String.format("%.1fx one slow client", burst.rate() / one.rate()));
        }
        ctx.progress(burstRow);
        ClosedLoop.Result eight = slow(ctx, slowTopic, "share-slow-c8", SLOW_CLIENTS);
        Report.Row eightRow = ctx.report.add(name(), "share.slow.c8", "share group: " + SLOW_CLIENTS
                + " slow clients, one partition").result(eight);
        if (one.rate() > 0) {
            eightRow.note(String.format("%.1fx one slow client", eight.rate() / one.rate()));
        }
        ctx.progress(eightRow);
        // the same clients in a classic group, which offers up to max_pending_messages of a partition at once
        String classic = ctx.newGroup("classic-slow");
        ctx.kafka.startGroupAtBeginningOfOnePartition(classic, slowTopic);
        ClosedLoop.Result classicEight = slowLoop(ctx, slowTopic, classic, SLOW_CLIENTS);
        Report.Row classicRow = ctx.report.add(name(), "share.slow.classic.c8", "classic group: " + SLOW_CLIENTS
                + " slow clients, one partition").result(classicEight);
        ctx.progress(classicRow);
    }

    private void row(BenchContext ctx, String key, String label, ClosedLoop.Result r, String classicKey) {
        Report.Row row = ConsumeRuns.record(ctx, name(), key, label, r);
        ctx.report.row(classicKey).filter(classic -> classic.rate > 0).ifPresent(classic -> row.note(
                String.format("%.2fx the classic group's row", r.rate() / classic.rate)));
        ctx.progress(row);
    }

    /** Clients that take a message ({@code noAck}), work on it for {@link #SLOW_CLIENT_MS}, then ack it. */
    private static ClosedLoop.Result slow(BenchContext ctx, String topic, String group, int clients)
            throws Exception {
        ctx.kafka.startShareGroupAtBeginning(group);
        return slowLoop(ctx, topic, group, clients);
    }

    private static ClosedLoop.Result slowLoop(BenchContext ctx, String topic, String group, int clients)
            throws Exception {
        return ctx.loop(clients).run(i -> slowClient(ctx, topic, group));
    }

    private static ClosedLoop.Worker slowClient(BenchContext ctx, String topic, String group) {
        return () -> {
            Optional<JsonObject> m = ctx.rest.consumeNoAck(topic, group);
            if (m.isEmpty()) {
                return ClosedLoop.Outcome.EMPTY;
            }
            Thread.sleep(SLOW_CLIENT_MS);
            ctx.rest.ack(topic, group, m.get().getInt("partition"), m.get().getJsonNumber("offset").longValue());
            return ClosedLoop.Outcome.OK;
        };
    }

    /** Both APIs' share paths run for {@link #WARM_UP} on groups of their own; nothing is recorded. */
    private static void warmUp(BenchContext ctx, FilledTopic topic) throws Exception {
        Duration half = WARM_UP.dividedBy(2);
        ctx.kafka.startShareGroupAtBeginning("share-warm-rest");
        ConsumeRuns.rest(ctx, topic, "share-warm-rest", 16, half);
        ctx.kafka.startShareGroupAtBeginning("share-warm-grpc");
        ConsumeRuns.grpc(ctx, topic, "share-warm-grpc", 16, half);
    }
}
