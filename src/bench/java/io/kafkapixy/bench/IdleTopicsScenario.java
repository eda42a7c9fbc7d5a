package io.kafkapixy.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What idle topics cost a busy one in the same group: the REST auto-ack consume rate of the pre-filled topic at
 * concurrency {@value #CONCURRENCY}, first alone, then while the same group also has {@code --idle-topics} empty
 * topics, each holding {@code --parked-per-idle-topic} requests parked in a loop (re-sent as each times out) for the
 * whole run. Each run uses a fresh group, so both start from the topic's beginning.
 */
final class IdleTopicsScenario implements Scenario {

    static final int CONCURRENCY = 16;
    static final String WITHOUT = "idle-topics.without";
    static final String WITH = "idle-topics.with";

    @Override
    public String name() {
        return "idle-topics";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        FilledTopic busy = ctx.filledTopic();
        ClosedLoop.Result alone = ConsumeRuns.rest(ctx, busy, ConsumeRuns.freshGroup(ctx, busy, "busy-alone"),
                CONCURRENCY);
        ctx.progress(ConsumeRuns.record(ctx, name(), WITHOUT, "REST c=" + CONCURRENCY + " alone",
                alone));

        int topics = ctx.options.idleTopics();
        int perTopic = ctx.options.parkedPerIdleTopic();
        List<String> idle = ctx.newTopics("idle", topics);
        // the busy topic's offsets go in first: Kafka takes them only while the group has no members
        String group = ConsumeRuns.freshGroup(ctx, busy, "busy-with-idle");
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong timeouts = new AtomicLong();
        Map<String, Long> other = new ConcurrentHashMap<>();
        List<Thread> loops = new ArrayList<>();
        for (String topic : idle) {
            for (int k = 0; k < perTopic; k++) {
                loops.add(Thread.ofVirtual().name("idle-" + topic + "-" + k).start(() -> {
                    while (!stop.get()) {
                        try {
                            if (ctx.rest.consume(topic, group).isEmpty()) {
                                timeouts.incrementAndGet();
                            } else {
                                other.merge("a message from an empty topic", 1L, Long::sum);
                            }
                        } catch (Exception e) {
                            other.merge(ClosedLoop.describe(e), 1L, Long::sum);
                            pause();
                        }
                    }
                }));
            }
        }
        ClosedLoop.Result with;
        try {
            // let the group take in the idle topics before the busy one joins them
            Thread.sleep(ctx.options.longPoll().toMillis());
            with = ConsumeRuns.rest(ctx, busy, group, CONCURRENCY);
        } finally {
            stop.set(true);
            for (Thread t : loops) {
                t.join(ctx.options.longPoll().toMillis() + 15_000);
            }
        }
        Report.Row row = ConsumeRuns.record(ctx, name(), WITH, String.format("REST c=%d + %d idle topics", CONCURRENCY,
                topics), with).baseline(WITHOUT);
        row.note(String.format("%d idle topics x %d parked: %,d long polls timed out as expected", topics, perTopic,
                timeouts.get()));
        new TreeMap<>(other).forEach((what, count) -> row.note(String.format("idle requests: %,d x %s", count, what)));
        row.extra("idleTopics", topics).extra("parkedPerIdleTopic", perTopic).extra("idleTimeouts", timeouts.get())
                .extra("idleOtherAnswers", new TreeMap<String, Object>(other));
        ctx.progress(row);
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
