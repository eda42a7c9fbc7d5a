package io.kafkapixy.admin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.offset.SparseAcks;
import io.kafkapixy.offset.store.Committed;
import io.kafkapixy.offset.store.OffsetStore;
import io.kafkapixy.offset.store.RawOffsets;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.protocol.Errors;

/**
 * The operator's calls of one cluster: offsets, consumers and topics, through the Kafka Admin API, so they work on
 * KRaft clusters without ZooKeeper. Thread-safe; the {@code Proxy} owns the Admin client it uses.
 */
public final class PixyAdmin {

    /** sarama's text for {@code UNKNOWN_TOPIC_OR_PARTITION}, which the original sends to clients. */
    static final String UNKNOWN_TOPIC_TEXT = "kafka server: Request was for a topic or partition that does not exist"
                                             + " on this broker.";

    private final Admin admin;
    private final OffsetStore offsets;
    private final AdminCalls calls;
    private final Optional<ConsumerDirectory> zooKeeperConsumers;
    private final LogRanges ranges;
    /** Whether a group is a share group, whose calls {@link #shares} answers. */
    private final Predicate<String> isShareGroup;
    private final ShareGroupAdmin shares;

    PixyAdmin(Admin admin, OffsetStore offsets, AdminCalls calls, Optional<ConsumerDirectory> zooKeeperConsumers,
              Predicate<String> isShareGroup) {
        this.admin = admin;
        this.offsets = offsets;
        this.calls = calls;
        this.zooKeeperConsumers = zooKeeperConsumers;
        this.ranges = new LogRanges(admin, calls);
        this.isShareGroup = isShareGroup;
        this.shares = new ShareGroupAdmin(admin, calls, ranges);
    }

    /**
     * Who consumes which partitions, as group → member → sorted partitions, from somewhere other than Kafka's
     * group descriptions (ZooKeeper's owner nodes in {@code membership: zookeeper}).
     */
    public interface ConsumerDirectory {
        /** @throws PixyException with the original's kinds and texts */
        SortedMap<String, SortedMap<String, List<Integer>>> list(String topic, Optional<String> group);

        /** The members registered in the group right now. */
        List<String> members(String group);
    }

    /**
     * Admin calls through {@code admin}, committed offsets through {@code offsets}; it closes neither. The groups
     * {@code isShareGroup} names are answered as share groups.
     */
    public static PixyAdmin create(Admin admin, OffsetStore offsets, Duration timeout,
                                   Optional<ConsumerDirectory> zooKeeperConsumers, Predicate<String> isShareGroup) {
        return new PixyAdmin(admin, offsets, new AdminCalls(timeout), zooKeeperConsumers, isShareGroup);
    }

    /**
     * The group's committed offsets of every partition of the topic, with the log range and lag.
     *
     * @throws PixyException {@code UNKNOWN_TOPIC}, {@code ADMIN_FAILED}
     */
    public List<PartitionOffsets> getOffsets(String group, String topic) {
        if (isShareGroup.test(group)) {
            return adminCall(() -> shares.getOffsets(group, topic));
        }
        return adminCall(() -> {
            List<TopicPartition> partitions = ranges.partitions(topic, "failed to get topic partitions: ");
            Map<TopicPartition, Long> begin = ranges.offsets(partitions, OffsetSpec.earliest(),
                    "failed to fetch oldest offset");
            Map<TopicPartition, Long> end = ranges.offsets(partitions, OffsetSpec.latest(),
                    "failed to fetch newest offset");
            Map<TopicPartition, Committed> committed = fetchCommitted(group, partitions);
            List<PartitionOffsets> result = new ArrayList<>();
            for (TopicPartition tp : partitions) {
                long b = begin.get(tp);
                long e = end.get(tp);
                Committed c = committed.getOrDefault(tp, Committed.NONE);
                result.add(new PartitionOffsets(tp.partition(), b, e, e - b, c.offset(),
                        PartitionOffsets.lag(c.offset(), b, e), c.metadata(),
                        SparseAcks.human(c.offset(), c.metadata())));
            }
            return result;
        });
    }

    /**
     * Stores offsets and metadata verbatim for the given partitions; the others are left alone. A group with live
     * members is refused: they would overwrite the new offsets with theirs (the original's issue #163).
     *
     * @throws PixyException {@code UNKNOWN_TOPIC} (also for a partition the topic does not have),
     *                       {@code GROUP_ACTIVE}, {@code BAD_REQUEST}, {@code ADMIN_FAILED}
     */
    public void setOffsets(String group, String topic, List<OffsetUpdate> updates) {
        if (isShareGroup.test(group)) {
            adminCall(() -> shares.setOffsets(group, topic, updates));
            return;
        }
        adminCall(() -> {
            Set<TopicPartition> existing = new java.util.HashSet<>(ranges.partitions(topic, ""));
            Map<TopicPartition, Committed> commits = new LinkedHashMap<>();
            for (OffsetUpdate u : updates) {
                TopicPartition tp = new TopicPartition(topic, u.partition());
                if (!existing.contains(tp)) {
                    throw new PixyException(ErrorKind.UNKNOWN_TOPIC, UNKNOWN_TOPIC_TEXT);
                }
                commits.put(tp, new Committed(u.offset(), u.metadata()));
            }
            if (commits.isEmpty()) {
                return null;
            }
            List<String> members = new ArrayList<>(liveMembers(group));
            zooKeeperConsumers.ifPresent(z -> members.addAll(z.members(group)));
            if (!members.isEmpty()) {
                throw groupActive(group, members);
            }
            try {
                offsets.commit(group, commits);
            } catch (RawOffsets.RawOffsetsException e) {
                if (e.errors().contains(Errors.UNKNOWN_MEMBER_ID) || e.errors().contains(Errors.ILLEGAL_GENERATION)) {
                    throw groupActive(group, liveMembers(group));
                }
                if (e.errors().contains(Errors.UNKNOWN_TOPIC_OR_PARTITION)) {
                    throw new PixyException(ErrorKind.UNKNOWN_TOPIC, UNKNOWN_TOPIC_TEXT);
                }
                if (e.errors().contains(Errors.OFFSET_METADATA_TOO_LARGE)) {
                    // the original's text exactly (sarama's error string, nothing before it)
                    throw new PixyException(ErrorKind.ADMIN_FAILED, "kafka server: "
                            + "Specified a string larger than the configured maximum for offset metadata.", e);
                }
                throw new PixyException(ErrorKind.ADMIN_FAILED, "failed to commit offsets: " + e.getMessage(), e);
            } catch (KafkaException e) {
                throw new PixyException(ErrorKind.ADMIN_FAILED, "failed to commit offsets: " + e.getMessage(), e);
            }
            return null;
        });
    }

    private Map<TopicPartition, Committed> fetchCommitted(String group, List<TopicPartition> partitions) {
        try {
            return offsets.fetch(group, partitions);
        } catch (RawOffsets.RawOffsetsException | KafkaException e) {
            throw new PixyException(ErrorKind.ADMIN_FAILED, "failed to fetch offsets: " + e.getMessage(), e);
        }
    }

    private static PixyException groupActive(String group, List<String> members) {
        return new PixyException(ErrorKind.GROUP_ACTIVE, "consumer group " + group + " is active (members "
                + members + "): its members would overwrite the offsets; set them while it has no members");
    }

    private List<String> liveMembers(String group) {
        try {
            ConsumerGroupDescription d = calls.await("failed to describe group",
                    admin.describeConsumerGroups(List.of(group)).describedGroups().get(group));
            return d.members().stream().map(MemberDescription::consumerId).sorted().toList();
        } catch (AdminCalls.Failure f) {
            if (f.getCause() instanceof GroupIdNotFoundException) {
                return List.of();
            }
            throw f;
        }
    }

    /**
     * Who consumes which partitions of the topic: group → member → sorted partitions. With a group, only that
     * group, and an unknown group or a group that does not consume the topic is an error; without, every group
     * that has members consuming the topic.
     *
     * @throws PixyException {@code CONSUMERS_NOT_FOUND} (with a group), {@code ADMIN_FAILED}
     */
    public SortedMap<String, SortedMap<String, List<Integer>>> listConsumers(String topic, Optional<String> group) {
        if (zooKeeperConsumers.isPresent()) {
            return zooKeeperConsumers.get().list(topic, group);
        }
        if (group.isPresent() && isShareGroup.test(group.get())) {
            return adminCall(() -> shares.listConsumers(topic, group.get()));
        }
        return adminCall(() -> {
            SortedMap<String, SortedMap<String, List<Integer>>> result = new TreeMap<>();
            if (group.isPresent()) {
                // The original answers every failure here as "not found" (400 / NOT_FOUND), keeping its text.
                String g = group.get();
                ConsumerGroupDescription d;
                try {
                    d = calls.await("failed to describe group",
                            admin.describeConsumerGroups(List.of(g)).describedGroups().get(g));
                } catch (AdminCalls.Failure f) {
                    throw new PixyException(ErrorKind.CONSUMERS_NOT_FOUND,
                            f.getCause() instanceof GroupIdNotFoundException ? "unknown consumer group " + g
                                    : f.getMessage());
                } catch (PixyException e) {
                    throw new PixyException(ErrorKind.CONSUMERS_NOT_FOUND, e.getMessage());
                }
                if (d.groupState() == GroupState.DEAD) {
                    throw new PixyException(ErrorKind.CONSUMERS_NOT_FOUND, "unknown consumer group " + g);
                }
                SortedMap<String, List<Integer>> owners = owners(d, topic);
                if (owners.isEmpty()) {
                    throw new PixyException(ErrorKind.CONSUMERS_NOT_FOUND, "topic " + topic + " is not consumed by " + g);
                }
                result.put(g, owners);
                return result;
            }
            result.putAll(shares.allConsumers(topic));
            Collection<String> groups = calls.await("failed to fetch consumer groups",
                    admin.listGroups(ListGroupsOptions.forConsumerGroups()).all()).stream().map(l -> l.groupId()).toList();
            if (groups.isEmpty()) {
                return result;
            }
            Map<String, ConsumerGroupDescription> described = new HashMap<>();
            admin.describeConsumerGroups(groups).describedGroups().forEach((id, future) -> {
                try {
                    described.put(id, calls.await("failed to describe group", future));
                } catch (AdminCalls.Failure | PixyException skipped) {
                    // gone meanwhile, or not answering: the original skips groups that error
                }
            });
            described.forEach((id, d) -> {
                SortedMap<String, List<Integer>> owners = owners(d, topic);
                if (!owners.isEmpty()) {
                    result.put(id, owners);
                }
            });
            return result;
        });
    }

    private static SortedMap<String, List<Integer>> owners(ConsumerGroupDescription d, String topic) {
        return Owners.of(d.members().stream().map(m -> new Owners.Member(m.clientId(), m.consumerId(),
                m.assignment().topicPartitions())).toList(), topic);
    }

    /**
     * Every topic, internal ones included, sorted; with partitions and/or config overrides when asked for.
     *
     * @throws PixyException {@code ADMIN_FAILED}
     */
    public SortedMap<String, TopicInfo> listTopics(boolean withPartitions, boolean withConfig) {
        return adminCall(() -> {
            Set<String> names = calls.await("failed to fetch topics",
                    admin.listTopics(new ListTopicsOptions().listInternal(true)).names());
            SortedMap<String, TopicInfo> result = new TreeMap<>();
            Map<String, TopicDescription> descriptions = new HashMap<>();
            if (withPartitions && !names.isEmpty()) {
                admin.describeTopics(names).topicNameValues().forEach((name, future) -> {
                    try {
                        descriptions.put(name, calls.await("failed to get topic metadata", future));
                    } catch (AdminCalls.Failure f) {
                        if (!(f.getCause() instanceof UnknownTopicOrPartitionException)) {
                            throw f;
                        }
                    }
                });
                names = new java.util.TreeSet<>(descriptions.keySet());
            }
            Map<String, TopicInfo.Config> configs = withConfig ? configs(names) : Map.of();
            for (String name : names) {
                if (withConfig && !configs.containsKey(name)) {
                    continue;
                }
                result.put(name, new TopicInfo(Optional.ofNullable(configs.get(name)),
                        withPartitions ? Optional.of(partitionsOf(descriptions.get(name))) : Optional.empty()));
            }
            return result;
        });
    }

    /** All topic names, sorted (list-topics without flags). */
    public List<String> topicNames() {
        return List.copyOf(listTopics(false, false).keySet());
    }

    /**
     * One topic's config overrides, and its partitions when asked for.
     *
     * @throws PixyException {@code TOPIC_NOT_FOUND}, {@code ADMIN_FAILED}
     */
    public TopicInfo topic(String topic, boolean withPartitions) {
        return adminCall(() -> {
            TopicDescription d;
            try {
                d = calls.await("failed to get partitions",
                        admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
            } catch (AdminCalls.Failure f) {
                if (f.getCause() instanceof UnknownTopicOrPartitionException) {
                    throw new PixyException(ErrorKind.TOPIC_NOT_FOUND, "failed to get partitions: "
                                                                       + UNKNOWN_TOPIC_TEXT);
                }
                throw f;
            }
            TopicInfo.Config config = configs(Set.of(topic)).get(topic);
            return new TopicInfo(Optional.of(config),
                    withPartitions ? Optional.of(partitionsOf(d)) : Optional.empty());
        });
    }

    private Map<String, TopicInfo.Config> configs(Collection<String> topics) {
        if (topics.isEmpty()) {
            return Map.of();
        }
        List<ConfigResource> resources = topics.stream()
                .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
        Map<ConfigResource, Config> described = new HashMap<>();
        admin.describeConfigs(resources).values().forEach((resource, future) -> {
            try {
                described.put(resource, calls.await("failed to fetch topic configuration", future));
            } catch (AdminCalls.Failure f) {
                if (!(f.getCause() instanceof UnknownTopicOrPartitionException) || topics.size() == 1) {
                    throw f;
                }
            }
        });
        Map<String, TopicInfo.Config> result = new HashMap<>();
        described.forEach((resource, config) -> {
            SortedMap<String, String> overrides = new TreeMap<>();
            for (ConfigEntry e : config.entries()) {
                if (e.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG) {
                    overrides.put(e.name(), e.value());
                }
            }
            result.put(resource.name(), new TopicInfo.Config(1, overrides));
        });
        return result;
    }

    static List<TopicInfo.Partition> partitionsOf(TopicDescription d) {
        List<TopicInfo.Partition> result = new ArrayList<>();
        if (d == null) {
            return result;
        }
        for (TopicPartitionInfo p : d.partitions()) {
            Node leader = p.leader();
            result.add(new TopicInfo.Partition(p.partition(), leader == null || leader.isEmpty() ? -1 : leader.id(),
                    p.replicas().stream().map(Node::id).toList(), p.isr().stream().map(Node::id).toList()));
        }
        result.sort(java.util.Comparator.comparingInt(TopicInfo.Partition::partition));
        return result;
    }

    private static <T> T adminCall(Supplier<T> call) {
        try {
            return call.get();
        } catch (AdminCalls.Failure f) {
            throw f.asAdminFailure();
        }
    }
}
