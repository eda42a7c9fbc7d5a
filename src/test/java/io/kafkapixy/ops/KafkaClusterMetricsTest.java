package io.kafkapixy.ops;

import io.kafkapixy.consumer.ConsumerMetrics;
import io.kafkapixy.testing.TestKafka;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lifetime of a group-topic's series: shared by the group's members here, gone with the last of them. */
class KafkaClusterMetricsTest {

    private final PixyMetrics metrics = PixyMetrics.create();
    private final ConsumerMetrics consumers = metrics.cluster("c").consumers();
    private final String group = TestKafka.uniqueTopic("g");

    @AfterEach
    void close() {
        metrics.close();
    }

    @Test
    void aLeavingMemberDoesNotTakeTheSeriesOfTheMemberThatReplacesIt() {
        ConsumerMetrics.Topic leaving = consumers.topic(group, "t", "kafka");
        ConsumerMetrics.Topic joining = consumers.topic(group, "t", "kafka");
        joining.acked();

        leaving.remove();
        joining.acked();

        assertEquals(2.0, acks());
        joining.remove();
        assertFalse(exposed());
    }

    @Test
    void eachMemberReportsItsOwnSnapshotAndTheGaugesAddThemUp() {
        ConsumerMetrics.Topic leaving = consumers.topic(group, "t", "kafka");
        ConsumerMetrics.Topic joining = consumers.topic(group, "t", "kafka");
        java.time.Instant longAgo = java.time.Instant.now().minusSeconds(600);

        leaving.state(0, 3, 10, longAgo);
        joining.state(2, 1, 5, null);

        assertEquals(4, gauge("kafkapixy.consume.unacked"));
        assertEquals(2, gauge("kafkapixy.consume.parked"));
        assertEquals(15, gauge("kafkapixy.consume.lag"));
        assertTrue(gauge("kafkapixy.consume.oldest.unacked.seconds") >= 600,
                "the leaving member's oldest message counts, whatever its successor reported last");
        leaving.remove();
        assertEquals(0, gauge("kafkapixy.consume.oldest.unacked.seconds"));
        assertEquals(1, gauge("kafkapixy.consume.unacked"));
        joining.remove();
    }

    @Test
    void everyOutcomeSeriesExistsFromTheStartAndGoesWithTheTopic() {
        ConsumerMetrics.Topic t = consumers.topic(group, "t", "kafka");
        for (ConsumerMetrics.Outcome o : ConsumerMetrics.Outcome.values()) {
            assertTrue(metrics.registry().counter("kafkapixy.consume.requests", tags(o)).isPresent(), o.name());
        }

        t.remove();

        for (ConsumerMetrics.Outcome o : ConsumerMetrics.Outcome.values()) {
            assertFalse(metrics.registry().counter("kafkapixy.consume.requests", tags(o)).isPresent(), o.name());
        }
    }

    @Test
    void aGroupsRebalanceCounterGoesWithItsLastMember() {
        consumers.rebalanced(group);
        assertTrue(metrics.registry().counter("kafkapixy.consume.rebalances",
                io.helidon.metrics.api.Metrics.tags("cluster", "c", "group", group)).isPresent());

        consumers.groupGone(group);

        assertFalse(metrics.registry().counter("kafkapixy.consume.rebalances",
                io.helidon.metrics.api.Metrics.tags("cluster", "c", "group", group)).isPresent());
    }

    private Iterable<io.helidon.metrics.api.Tag> tags(ConsumerMetrics.Outcome o) {
        return io.helidon.metrics.api.Metrics.tags("cluster", "c", "group", group, "topic", "t", "mode", "kafka", "outcome",
                o.name().toLowerCase());
    }

    private double gauge(String name) {
        return metrics.registry().gauge(name, io.helidon.metrics.api.Metrics.tags("cluster", "c", "group", group,
                "topic", "t", "mode", "kafka")).orElseThrow().value().doubleValue();
    }

    private double acks() {
        return metrics.registry().counter("kafkapixy.consume.acks",
                io.helidon.metrics.api.Metrics.tags("cluster", "c", "group", group, "topic", "t", "mode", "kafka"))
                .orElseThrow().count();
    }

    private boolean exposed() {
        return metrics.registry().counter("kafkapixy.consume.acks",
                io.helidon.metrics.api.Metrics.tags("cluster", "c", "group", group, "topic", "t", "mode", "kafka")).isPresent();
    }
}
