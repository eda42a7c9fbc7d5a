package io.kafkapixy.config;

import java.time.Duration;

/**
 * {@code proxies.<name>.consumer}, plus two keys new in this project: {@code membership} (design.md §1) and
 * {@code shutdown_timeout}, how long a stopping instance waits for the acks of messages it offered (never longer than
 * {@code ack_timeout}) before it commits and leaves.
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
                             Membership membership) {

    public static final ConsumerConfig DEFAULT = new ConsumerConfig(false, Duration.ofMinutes(5), 64, 1_048_576,
            Duration.ofMillis(250), Duration.ofSeconds(3), 300, -1, Duration.ofMillis(500), Duration.ZERO,
            Duration.ofMillis(500), Duration.ofSeconds(15), Duration.ofSeconds(15), Membership.KAFKA);

    public enum Membership { KAFKA, ZOOKEEPER }
}
