package io.kafkapixy.config;

import java.time.Duration;

/** {@code proxies.<name>.consumer}, plus {@code membership} (design.md §1), new in this project. */
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
                             Membership membership) {

    public static final ConsumerConfig DEFAULT = new ConsumerConfig(false, Duration.ofMinutes(5), 64, 1_048_576,
            Duration.ofMillis(250), Duration.ofSeconds(3), 300, -1, Duration.ofMillis(500), Duration.ZERO,
            Duration.ofMillis(500), Duration.ofSeconds(15), Membership.KAFKA);

    public enum Membership { KAFKA, ZOOKEEPER }
}
