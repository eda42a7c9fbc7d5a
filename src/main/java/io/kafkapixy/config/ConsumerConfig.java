package io.kafkapixy.config;

import java.time.Duration;
import java.util.List;

import io.kafkapixy.config.ConfigKey.Bound;
import io.kafkapixy.config.ConfigKey.Type;

/**
 * {@code proxies.<name>.consumer}: the original's keys, plus new ones in this project ({@code membership},
 * {@code shutdown_timeout}, {@code session_timeout}, the share groups' keys); each defined once below.
 */
public final class ConsumerConfig {

    /**
     * How the group is coordinated: Kafka's own group protocol, the original's ZooKeeper layout, or Kafka's share
     * groups (the broker keeps the acks and redeliveries).
     */
    public enum Membership { KAFKA, ZOOKEEPER, SHARE }

    public static final ConfigKey<Boolean> DISABLED = ConfigKey.of(
            "proxies.<name>.consumer.disabled", Type.BOOL, false, Bound.<Boolean>none(),
            "no consumer on this cluster: the consume and ack calls answer an error");
    public static final ConfigKey<Duration> ACK_TIMEOUT = ConfigKey.of(
            "proxies.<name>.consumer.ack_timeout", Type.DURATION, Duration.ofMinutes(5), Bound.positive(),
            "how long an offered message waits for its ack before it is offered again");
    public static final ConfigKey<Integer> CHANNEL_BUFFER_SIZE = ConfigKey.of(
            "proxies.<name>.consumer.channel_buffer_size", Type.INT, 64, Bound.atLeast(1),
            "records buffered per partition before fetching pauses (at most 256 here), and the parked "
            + "requests one group-topic takes");
    public static final ConfigKey<Integer> FETCH_MAX_BYTES = ConfigKey.of(
            "proxies.<name>.consumer.fetch_max_bytes", Type.INT, 1_048_576,
            // sic: the original's text names the key fetch_bytes
            Bound.atLeast(1).reportedAs("consumer.fetch_bytes"),
            "bytes fetched per partition in one request (Kafka's `max.partition.fetch.bytes`)");
    public static final ConfigKey<Duration> FETCH_MAX_WAIT = ConfigKey.of(
            "proxies.<name>.consumer.fetch_max_wait", Type.DURATION, Duration.ofMillis(250),
            Bound.atLeast(Duration.ofMillis(1)),
            "how long the broker may wait to fill a fetch (Kafka's `fetch.max.wait.ms`)");
    public static final ConfigKey<Duration> LONG_POLLING_TIMEOUT = ConfigKey.of(
            "proxies.<name>.consumer.long_polling_timeout", Type.DURATION, Duration.ofSeconds(3), Bound.positive(),
            "how long a consume request waits for a message before it is answered 408 / `NOT_FOUND`");
    public static final ConfigKey<Integer> MAX_PENDING_MESSAGES = ConfigKey.of(
            "proxies.<name>.consumer.max_pending_messages", Type.INT, 300, Bound.atLeast(1),
            "offered and not acked messages per partition before fetching pauses");
    public static final ConfigKey<Integer> MAX_RETRIES = ConfigKey.of(
            "proxies.<name>.consumer.max_retries", Type.INT, -1, Bound.atLeast(-1),
            "times a message is offered again before it is dropped as acked; -1: no limit");
    public static final ConfigKey<Duration> OFFSETS_COMMIT_INTERVAL = ConfigKey.of(
            "proxies.<name>.consumer.offsets_commit_interval", Type.DURATION, Duration.ofMillis(500), Bound.positive(),
            "how often acked offsets (with their sparse acks) are committed");
    public static final ConfigKey<Duration> REBALANCE_DELAY = ConfigKey.of(
            "proxies.<name>.consumer.rebalance_delay", Type.DURATION, Duration.ZERO, Bound.<Duration>none(),
            "accepted for compatibility; membership changes are the group protocol's");
    public static final ConfigKey<Duration> RETRY_BACKOFF = ConfigKey.of(
            "proxies.<name>.consumer.retry_backoff", Type.DURATION, Duration.ofMillis(500), Bound.positive(),
            "wait before retrying a failed fetch or commit");
    public static final ConfigKey<Duration> SUBSCRIPTION_TIMEOUT = ConfigKey.of(
            "proxies.<name>.consumer.subscription_timeout", Type.DURATION, Duration.ofSeconds(15), Bound.positive(),
            "how long a topic nobody asks for stays subscribed");
    public static final ConfigKey<Duration> SHUTDOWN_TIMEOUT = ConfigKey.of(
            "proxies.<name>.consumer.shutdown_timeout", Type.DURATION, Duration.ofSeconds(15), Bound.notNegative(),
            "on stop, how long partitions wait for the acks of messages they offered (never past their "
            + "`ack_timeout`) before committing");
    public static final ConfigKey<Duration> SESSION_TIMEOUT = ConfigKey.of(
            "proxies.<name>.consumer.session_timeout", Type.DURATION, Duration.ofSeconds(10),
            // at least twice the stop PauseWatch notices (1 s), so no stop the member survives unnoticed costs it
            // the group
            Bound.between(Duration.ofSeconds(2), Duration.ofMinutes(30), "must be between 2s and 30m"),
            "Kafka membership: how long the group coordinator waits for a silent member (crashed, frozen, cut "
            + "off) before its partitions go to the others; members heartbeat every fifth of it. The default "
            + "moves a crashed instance's partitions within the original's 15 s (kafka-clients' own 45 s "
            + "stalled them for almost a minute); 2s–30m, and the brokers' `group.min.session.timeout.ms` (6 s "
            + "by default) and `group.max.session.timeout.ms` must allow it, or the group's consume requests "
            + "fail with the broker's reason. ZooKeeper membership uses `zoo_keeper.session_timeout` instead. "
            + "See Operations, \"Faults\"");
    public static final ConfigKey<Membership> MEMBERSHIP = new ConfigKey<>(
            "proxies.<name>.consumer.membership", Type.choice(Membership.class), Membership.KAFKA,
            Bound.<Membership>none(), "-membership",
            "`kafka`: consumer groups through Kafka's own group protocol (no ZooKeeper, works on Kafka 4). "
            + "`zookeeper`: the original's ZooKeeper layout, so instances of both kinds can share a group "
            + "during a migration. `share`: Kafka share groups (Kafka 4.1+), the broker keeping acks and "
            + "redeliveries; see Share groups");
    public static final ConfigKey<List<String>> SHARE_GROUPS = ConfigKey.of(
            "proxies.<name>.consumer.share_groups", Type.STRINGS, List.of(), Bound.<List<String>>none(),
            "groups that are share groups whatever `membership` says, the others following `membership`");
    public static final ConfigKey<Integer> SHARE_CONSUMERS = ConfigKey.of(
            "proxies.<name>.consumer.share_consumers", Type.INT, 16, Bound.atLeast(1),
            "share groups: the share consumers one group and topic may use on this instance, each fetching up to "
            + "128 records at a time for the clients that wait");

    public static final ConfigKey<String> DEAD_LETTER_TOPIC = ConfigKey.of(
            "proxies.<name>.consumer.dead_letter_topic", Type.STRING, "",
            new Bound<>(ConsumerConfig::validDeadLetterTopic,
                    "must be a topic name (letters, digits, '.', '_', '-'), `{topic}` standing for the message's topic",
                    ""),
            "where a message goes whose `max_retries` ran out or that a client rejected, with headers saying where "
            + "it came from and why, before it is settled; `{topic}` stands for the message's topic (e.g. "
            + "`{topic}.dlt`). Unset: such messages are dropped, as the original does. See Dead-letter topic");

    /** The section's keys, in the order the config summary and the README list them. */
    public static final List<ConfigKey<?>> KEYS = List.of(DISABLED, ACK_TIMEOUT, CHANNEL_BUFFER_SIZE,
            FETCH_MAX_BYTES, FETCH_MAX_WAIT, LONG_POLLING_TIMEOUT, MAX_PENDING_MESSAGES, MAX_RETRIES,
            OFFSETS_COMMIT_INTERVAL, REBALANCE_DELAY, RETRY_BACKOFF, SUBSCRIPTION_TIMEOUT, SHUTDOWN_TIMEOUT,
            SESSION_TIMEOUT, MEMBERSHIP, SHARE_GROUPS, SHARE_CONSUMERS, DEAD_LETTER_TOPIC);

    public static final ConsumerConfig DEFAULT = new ConsumerConfig(Settings.defaults(KEYS));

    private final Settings values;
    /** Asked on every consume and ack: kept at hand rather than looked up and searched each time. */
    private final boolean allShare;
    private final java.util.Set<String> shareGroupNames;

    private ConsumerConfig(Settings values) {
        this.values = values;
        this.allShare = values.get(MEMBERSHIP) == Membership.SHARE;
        this.shareGroupNames = java.util.Set.copyOf(values.get(SHARE_GROUPS));
    }

    /** This section with {@code key} set to {@code value}. */
    public <T> ConsumerConfig with(ConfigKey<T> key, T value) {
        return new ConsumerConfig(values.with(key, value));
    }

    /** This section with every key the YAML section names read from it. */
    ConsumerConfig read(YamlSection section) {
        return new ConsumerConfig(values.read(section));
    }

    Settings settings() {
        return values;
    }

    public boolean disabled() {
        return values.get(DISABLED);
    }

    public Duration ackTimeout() {
        return values.get(ACK_TIMEOUT);
    }

    public int channelBufferSize() {
        return values.get(CHANNEL_BUFFER_SIZE);
    }

    public int fetchMaxBytes() {
        return values.get(FETCH_MAX_BYTES);
    }

    public Duration fetchMaxWait() {
        return values.get(FETCH_MAX_WAIT);
    }

    public Duration longPollingTimeout() {
        return values.get(LONG_POLLING_TIMEOUT);
    }

    public int maxPendingMessages() {
        return values.get(MAX_PENDING_MESSAGES);
    }

    public int maxRetries() {
        return values.get(MAX_RETRIES);
    }

    public Duration offsetsCommitInterval() {
        return values.get(OFFSETS_COMMIT_INTERVAL);
    }

    public Duration rebalanceDelay() {
        return values.get(REBALANCE_DELAY);
    }

    public Duration retryBackoff() {
        return values.get(RETRY_BACKOFF);
    }

    public Duration subscriptionTimeout() {
        return values.get(SUBSCRIPTION_TIMEOUT);
    }

    public Duration shutdownTimeout() {
        return values.get(SHUTDOWN_TIMEOUT);
    }

    public Duration sessionTimeout() {
        return values.get(SESSION_TIMEOUT);
    }

    public Membership membership() {
        return values.get(MEMBERSHIP);
    }

    public List<String> shareGroups() {
        return values.get(SHARE_GROUPS);
    }

    public int shareConsumers() {
        return values.get(SHARE_CONSUMERS);
    }

    /** The dead-letter topic's name template; empty when none is set. */
    public String deadLetterTopic() {
        return values.get(DEAD_LETTER_TOPIC);
    }

    /** Empty, or a legal Kafka topic name once each {@code {topic}} is replaced by one. */
    static boolean validDeadLetterTopic(String template) {
        if (template.isEmpty()) {
            return true;
        }
        String sample = template.replace("{topic}", "t");
        return sample.length() <= 249 && sample.matches("[a-zA-Z0-9._-]+") && !sample.equals(".")
               && !sample.equals("..");
    }

    /** Whether {@code group} is a share group here: {@code membership: share}, or named in {@code share_groups}. */
    public boolean isShareGroup(String group) {
        return allShare || shareGroupNames.contains(group);
    }

    /** Whether any group may be a share group here. */
    public boolean usesShareGroups() {
        return allShare || !shareGroupNames.isEmpty();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConsumerConfig c && values.equals(c.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return "ConsumerConfig" + values;
    }
}
