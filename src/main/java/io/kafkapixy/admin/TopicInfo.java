package io.kafkapixy.admin;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A topic as list-topics and topic-metadata report it: its config overrides in the shape
 * Kafka once wrote to ZooKeeper ({@code {version, config}}), when asked for, and its partitions, when asked for.
 */
public record TopicInfo(Optional<Config> config, Optional<List<Partition>> partitions) {

    /** The topic's config overrides. */
    public record Config(int version, Map<String, String> config) {
    }

    /** A partition: its leader (-1 when it has none), replicas and in-sync replicas by broker id. */
    public record Partition(int partition, int leader, List<Integer> replicas, List<Integer> isr) {
    }
}
