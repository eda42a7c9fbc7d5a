package io.kafkapixy.config;

import java.time.Duration;

/**
 * {@code proxies.<name>.consumer}, plus three keys new in this project: {@code membership} (how the group is
 * coordinated: {@code kafka}, Kafka's own group protocol, or {@code zookeeper}, the original's layout),
 * {@code shutdown_timeout}, how long a stopping instance waits for the acks of messages it offered (never longer than
 * {@code ack_timeout}) before it commits and leaves, and {@code session_timeout}, how long Kafka's group coordinator
 * waits for a silent member before its partitions go to the others (Kafka membership only; ZooKeeper membership has
 * {@code zoo_keeper.session_timeout}). Its default, 10 s, makes a crashed instance's partitions move within the
 * original's 15 s (its ZooKeeper session timeout), where kafka-clients' own default (45 s) stalled them for
 * almost a minute.
 */
public record ConsumerConfig(boolean disabled,
                             Duration ackTimeout,
                             int channelBufferSize,
                             int fetchMaxBytes,
                             Duration fetchMaxWait,
                             Duration longPollingTimeout,
                             int maxPendingMessages,
                             int maxRetries,
                             Duration offsetsCommitInterval,
                             Duration rebalanceDelay,
                             Duration retryBackoff,
                             Duration subscriptionTimeout,
                             Duration shutdownTimeout,
                             Duration sessionTimeout,
                             Membership membership) {

    public static final ConsumerConfig DEFAULT = new ConsumerConfig(false, Duration.ofMinutes(5), 64, 1_048_576,
            Duration.ofMillis(250), Duration.ofSeconds(3), 300, -1, Duration.ofMillis(500), Duration.ZERO,
            Duration.ofMillis(500), Duration.ofSeconds(15), Duration.ofSeconds(15), Duration.ofSeconds(10),
            Membership.KAFKA);

    public enum Membership { KAFKA, ZOOKEEPER }
}
