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
