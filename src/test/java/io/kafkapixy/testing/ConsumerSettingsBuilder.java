package io.kafkapixy.testing;

import java.time.Duration;

import io.kafkapixy.config.ConsumerConfig;

/** Consumer settings for tests: the original's defaults with shorter timeouts, changed one at a time. */
public final class ConsumerSettingsBuilder {

    private boolean disabled;
    private Duration ackTimeout = Duration.ofSeconds(30);
    private int channelBufferSize = 64;
    private Duration longPollingTimeout = Duration.ofSeconds(2);
    private int maxPendingMessages = 300;
    private int maxRetries = -1;
    private Duration offsetsCommitInterval = Duration.ofMillis(200);
    private Duration subscriptionTimeout = Duration.ofSeconds(15);
    private Duration shutdownTimeout = Duration.ofSeconds(1);
    private Duration retryBackoff = Duration.ofMillis(500);
    private Duration sessionTimeout = ConsumerConfig.DEFAULT.sessionTimeout();
    private ConsumerConfig.Membership membership = ConsumerConfig.Membership.KAFKA;
    private String deadLetterTopic = "";

    public static ConsumerSettingsBuilder fast() {
        return new ConsumerSettingsBuilder();
    }

    public ConsumerSettingsBuilder deadLetterTopic(String template) {
        this.deadLetterTopic = template;
        return this;
    }

    public ConsumerSettingsBuilder disabled() {
        this.disabled = true;
        return this;
    }

    public ConsumerSettingsBuilder ackTimeout(Duration d) {
        this.ackTimeout = d;
        return this;
    }

    public ConsumerSettingsBuilder channelBufferSize(int n) {
        this.channelBufferSize = n;
        return this;
    }

    public ConsumerSettingsBuilder longPollingTimeout(Duration d) {
        this.longPollingTimeout = d;
        return this;
    }

    public ConsumerSettingsBuilder maxPendingMessages(int n) {
        this.maxPendingMessages = n;
        return this;
    }

    public ConsumerSettingsBuilder maxRetries(int n) {
        this.maxRetries = n;
        return this;
    }

    public ConsumerSettingsBuilder shutdownTimeout(Duration d) {
        this.shutdownTimeout = d;
        return this;
    }

    public ConsumerSettingsBuilder subscriptionTimeout(Duration d) {
        this.subscriptionTimeout = d;
        return this;
    }

    public ConsumerSettingsBuilder sessionTimeout(Duration d) {
        this.sessionTimeout = d;
        return this;
    }

    public ConsumerSettingsBuilder zooKeeperMembership() {
        this.membership = ConsumerConfig.Membership.ZOOKEEPER;
        this.retryBackoff = Duration.ofMillis(200);
        return this;
    }

    /** Kafka share groups: the broker keeps acks and redeliveries. */
    public ConsumerSettingsBuilder shareMembership() {
        this.membership = ConsumerConfig.Membership.SHARE;
        return this;
    }

    public ConsumerConfig build() {
        ConsumerConfig d = ConsumerConfig.DEFAULT;
        return d.with(ConsumerConfig.DISABLED, disabled)
                .with(ConsumerConfig.ACK_TIMEOUT, ackTimeout)
                .with(ConsumerConfig.CHANNEL_BUFFER_SIZE, channelBufferSize)
                .with(ConsumerConfig.FETCH_MAX_WAIT, Duration.ofMillis(100))
                .with(ConsumerConfig.LONG_POLLING_TIMEOUT, longPollingTimeout)
                .with(ConsumerConfig.MAX_PENDING_MESSAGES, maxPendingMessages)
                .with(ConsumerConfig.MAX_RETRIES, maxRetries)
                .with(ConsumerConfig.OFFSETS_COMMIT_INTERVAL, offsetsCommitInterval)
                .with(ConsumerConfig.RETRY_BACKOFF, retryBackoff)
                .with(ConsumerConfig.SUBSCRIPTION_TIMEOUT, subscriptionTimeout)
                .with(ConsumerConfig.SHUTDOWN_TIMEOUT, shutdownTimeout)
                .with(ConsumerConfig.SESSION_TIMEOUT, sessionTimeout)
                .with(ConsumerConfig.MEMBERSHIP, membership)
                .with(ConsumerConfig.DEAD_LETTER_TOPIC, deadLetterTopic);
    }
}
