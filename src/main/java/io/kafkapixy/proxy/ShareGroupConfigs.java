package io.kafkapixy.proxy;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.config.Durations;
import io.kafkapixy.consumer.share.ShareGroupSetup;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.common.TopicPartition;
import java.util.HashMap;

/**
 * The proxy's consumer settings as share groups' own: {@code ack_timeout} is a group's record lock duration, brought
 * within the brokers' bounds (the proxy releases a record once its client's {@code ack_timeout} has passed and renews
 * the lock while it keeps a record longer than the lock lasts, so any {@code ack_timeout} works), and
 * {@code max_retries} its delivery count limit (deliveries, so retries + 1; no limit, -1, is the brokers' largest). At
 * start-up the brokers' bounds are read and a {@code max_retries} outside them stops the start, naming both; a broker
 * that has no such bounds (older than Kafka 4.1) is not checked, and its share groups fail at their first use.
 */
final class ShareGroupConfigs implements ShareGroupSetup {

    private static final System.Logger LOG = System.getLogger(ShareGroupConfigs.class.getName());

    static final String LOCK_DURATION = "share.record.lock.duration.ms";
    static final String DELIVERY_LIMIT = "share.delivery.count.limit";
    static final String MIN_LOCK = "group.share.min.record.lock.duration.ms";
    static final String MAX_LOCK = "group.share.max.record.lock.duration.ms";
    static final String MIN_DELIVERIES = "group.share.min.delivery.count.limit";
    static final String MAX_DELIVERIES = "group.share.max.delivery.count.limit";

    private final Admin admin;
    private final Duration timeout;
    private final List<AlterConfigOp> settings;
    private final int deliveryLimit;

    private ShareGroupConfigs(Admin admin, Duration timeout, List<AlterConfigOp> settings, int deliveryLimit) {
        this.admin = admin;
        this.timeout = timeout;
        this.settings = settings;
        this.deliveryLimit = deliveryLimit;
    }

    @Override
    public int deliveryLimit() {
        return deliveryLimit;
    }

    /**
     * Reads the brokers' bounds and checks {@code c} against them.
     *
     * @throws IllegalStateException a value outside the brokers' bounds, or the brokers could not be asked
     */
    static ShareGroupConfigs check(String cluster, Admin admin, ConsumerConfig c, Duration timeout) {
        Map<String, String> broker = brokerConfig(cluster, admin, timeout);
        long lockMs = lockDuration(c.ackTimeout(), number(broker, MIN_LOCK), number(broker, MAX_LOCK)).toMillis();
        if (lockMs != c.ackTimeout().toMillis()) {
            LOG.log(System.Logger.Level.INFO, "Cluster {0}: share groups lock records for {1} ({2}, {3}); "
                    + "consumer.ack_timeout {4} is kept by the proxy", cluster,
                    Durations.format(Duration.ofMillis(lockMs)), MIN_LOCK, MAX_LOCK,
                    Durations.format(c.ackTimeout()));
        }
        Optional<Long> minDeliveries = number(broker, MIN_DELIVERIES);
        Optional<Long> maxDeliveries = number(broker, MAX_DELIVERIES);
        Long deliveries = c.maxRetries() < 0 ? maxDeliveries.orElse(null) : Long.valueOf(c.maxRetries() + 1L);
        if (deliveries != null && minDeliveries.isPresent() && maxDeliveries.isPresent()
            && (deliveries < minDeliveries.get() || deliveries > maxDeliveries.get())) {
            throw new IllegalStateException("proxies." + cluster + ".consumer.max_retries " + c.maxRetries()
                    + " makes a share group delivery count limit of " + deliveries + " (retries + 1), outside the "
                    + minDeliveries.get() + " to " + maxDeliveries.get() + " the brokers allow (" + MIN_DELIVERIES
                    + ", " + MAX_DELIVERIES + ")");
        }
        List<AlterConfigOp> ops = new java.util.ArrayList<>();
        ops.add(set(LOCK_DURATION, String.valueOf(lockMs)));
        if (deliveries != null) {
            ops.add(set(DELIVERY_LIMIT, String.valueOf(deliveries)));
        }
        return new ShareGroupConfigs(admin, timeout, List.copyOf(ops), deliveries == null ? 0 : deliveries.intValue());
    }

    /**
     * The record lock a share group gets: {@code ackTimeout} within the brokers' bounds. A shorter lock than the
     * ack_timeout is renewed while a record is kept; a longer one is cut short by a release at the ack_timeout, but a
     * crashed instance's records wait for it to run out.
     */
    static Duration lockDuration(Duration ackTimeout, Optional<Long> minMs, Optional<Long> maxMs) {
        long ms = ackTimeout.toMillis();
        if (minMs.isPresent()) {
            ms = Math.max(ms, minMs.get());
        }
        if (maxMs.isPresent()) {
            ms = Math.min(ms, maxMs.get());
        }
        return Duration.ofMillis(ms);
    }

    @Override
    public void prepare(String group) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        try {
            admin.incrementalAlterConfigs(Map.of(resource, settings),
                            new AlterConfigsOptions().timeoutMs((int) timeout.toMillis()))
                    .all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof UnsupportedVersionException) {
                throw PixyException.shareGroupsUnavailable(cause.getMessage());
            }
            throw new PixyException(ErrorKind.INTERNAL, "failed to set up share group " + group + ": "
                    + cause.getMessage(), cause);
        } catch (TimeoutException e) {
            throw new PixyException(ErrorKind.INTERNAL, "failed to set up share group " + group + ": no answer within "
                    + Durations.format(timeout));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw PixyException.shuttingDown();
        }
    }

    @Override
    public int startTopic(String group, String topic) {
        int count = 0;
        try {
            List<TopicPartition> partitions = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(topic).partitions().stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            count = partitions.size();
            Map<TopicPartition, SharePartitionOffsetInfo> state = admin.listShareGroupOffsets(Map.of(group,
                            new ListShareGroupOffsetsSpec().topicPartitions(partitions)))
                    .partitionsToOffsetInfo(group).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            List<TopicPartition> unread = partitions.stream().filter(tp -> state.get(tp) == null).toList();
            if (unread.isEmpty() || !"latest".equals(groupReset(group))) {
                return count;
            }
            Map<TopicPartition, OffsetSpec> newest = new HashMap<>();
            unread.forEach(tp -> newest.put(tp, OffsetSpec.latest()));
            Map<TopicPartition, Long> starts = new HashMap<>();
            admin.listOffsets(newest).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .forEach((tp, info) -> starts.put(tp, info.offset()));
            admin.alterShareGroupOffsets(group, starts).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof GroupNotEmptyException)) {
                // a member of the group (here or elsewhere) reads already: it started the group where it starts
                LOG.log(System.Logger.Level.WARNING, "Share group {0}: could not start {1} at its newest records: "
                        + "{2}; it starts at its first fetch", group, topic, e.getCause().getMessage());
            }
        } catch (TimeoutException e) {
            LOG.log(System.Logger.Level.WARNING, "Share group {0}: could not start {1} at its newest records in {2}",
                    group, topic, Durations.format(timeout));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return count;
    }

    /** The group's {@code share.auto.offset.reset}: {@code latest} unless the group was set otherwise. */
    private String groupReset(String group) throws ExecutionException, InterruptedException, TimeoutException {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        ConfigEntry reset = admin.describeConfigs(List.of(resource)).all()
                .get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(resource).get("share.auto.offset.reset");
        return reset == null || reset.value() == null ? "latest" : reset.value();
    }

    private static AlterConfigOp set(String name, String value) {
        return new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
    }

    private static Map<String, String> brokerConfig(String cluster, Admin admin, Duration timeout) {
        try {
            Collection<Node> nodes = admin.describeCluster().nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (nodes.isEmpty()) {
                return Map.of();
            }
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER,
                    String.valueOf(nodes.iterator().next().id()));
            Config config = admin.describeConfigs(List.of(broker),
                            new DescribeConfigsOptions().timeoutMs((int) timeout.toMillis()))
                    .all().get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(broker);
            Map<String, String> values = new java.util.HashMap<>();
            for (ConfigEntry e : config.entries()) {
                if (e.value() != null) {
                    values.put(e.name(), e.value());
                }
            }
            return values;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("failed to spawn proxy, name=" + cluster + ": could not read the brokers' "
                    + "share group bounds: " + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static Optional<Long> number(Map<String, String> config, String name) {
        try {
            return Optional.ofNullable(config.get(name)).map(Long::parseLong);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
