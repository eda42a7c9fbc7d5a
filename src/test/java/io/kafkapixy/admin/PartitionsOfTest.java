package io.kafkapixy.admin;

import java.util.List;

import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Partition metadata as list-topics and topic-metadata report it. */
class PartitionsOfTest {

    @Test
    void aPartitionWithoutALeaderIsReportedWithLeaderMinusOneInsteadOfFailing() {
        Node b1 = new Node(1, "h1", 9092);
        Node b2 = new Node(2, "h2", 9092);
        TopicDescription d = new TopicDescription("t", false, List.of(
                new TopicPartitionInfo(1, null, List.of(b1, b2), List.of()),
                new TopicPartitionInfo(0, b2, List.of(b2, b1), List.of(b2, b1))));

        List<TopicInfo.Partition> partitions = PixyAdmin.partitionsOf(d);

        assertEquals(List.of(new TopicInfo.Partition(0, 2, List.of(2, 1), List.of(2, 1)),
                new TopicInfo.Partition(1, -1, List.of(1, 2), List.of())), partitions);
    }
}
