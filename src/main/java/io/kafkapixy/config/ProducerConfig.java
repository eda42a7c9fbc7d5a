package io.kafkapixy.config;

import java.time.Duration;
import java.util.List;

import io.kafkapixy.config.ConfigKey.Bound;
import io.kafkapixy.config.ConfigKey.Type;

/**
 * {@code proxies.<name>.producer}, each key defined once below. {@link #flushFrequencyExplicit()} records whether
 * {@code flush_frequency} was written in the config file: only then is it honoured as {@code linger.ms} (its default,
 * 500 ms, as a linger would add half a second to every sync produce).
 */
public final class ProducerConfig {

    public enum Compression { NONE, GZIP, SNAPPY, LZ4 }

    public enum RequiredAcks {
        NO_RESPONSE("0"), WAIT_FOR_LOCAL("1"), WAIT_FOR_ALL("all");

        private final String kafkaAcks;

        RequiredAcks(String kafkaAcks) {
            this.kafkaAcks = kafkaAcks;
        }

        /** The {@code acks} producer setting of kafka-clients. */
        public String kafkaAcks() {
            return kafkaAcks;
        }
    }

    public enum Partitioner { HASH, RANDOM, ROUNDROBIN }

    public static final ConfigKey<Integer> CHANNEL_BUFFER_SIZE = ConfigKey.of(
            "proxies.<name>.producer.channel_buffer_size", Type.INT, 4096,
            Bound.atLeast(1),
            "accepted for compatibility (the original's channel sizes); the shared producer buffers by bytes");
    public static final ConfigKey<Integer> MAX_MESSAGE_BYTES = ConfigKey.of(
            "proxies.<name>.producer.max_message_bytes", Type.INT, 1_000_000,
            Bound.atLeast(1),
            "largest message accepted (413 / `INVALID_ARGUMENT` above it); keep it within the broker's "
            + "`message.max.bytes`");
    public static final ConfigKey<Compression> COMPRESSION = ConfigKey.of(
            "proxies.<name>.producer.compression",
            Type.choice(Compression.class, (section, v) -> section.error("bad compression, " + v)), Compression.SNAPPY,
            Bound.<Compression>none(),
            "`none`, `gzip`, `snappy` or `lz4`");
    public static final ConfigKey<Integer> FLUSH_BYTES = ConfigKey.of(
            "proxies.<name>.producer.flush_bytes", Type.INT, 1_048_576,
            Bound.atLeast(0),
            "best-effort bytes per batch (Kafka's `batch.size`, at most 128 KiB here)");
    public static final ConfigKey<Duration> FLUSH_FREQUENCY = ConfigKey.of(
            "proxies.<name>.producer.flush_frequency", Type.DURATION, Duration.ofMillis(500),
            Bound.notNegative(),
            "Kafka's `linger.ms` only when written in the file; else batches form while requests are in "
            + "flight (`linger.ms=1`)");
    public static final ConfigKey<Duration> RETRY_BACKOFF = ConfigKey.of(
            "proxies.<name>.producer.retry_backoff", Type.DURATION, Duration.ofSeconds(10),
            Bound.positive(),
            "wait between retries of a failed send");
    public static final ConfigKey<Integer> RETRY_MAX = ConfigKey.of(
            "proxies.<name>.producer.retry_max", Type.INT, 6,
            Bound.atLeast(1),
            "retries of a failed send before it is answered with an error");
    public static final ConfigKey<RequiredAcks> REQUIRED_ACKS = ConfigKey.of(
            "proxies.<name>.producer.required_acks",
            // sic: the original says compression for a bad required_acks too
            Type.choice(RequiredAcks.class, (section, v) -> section.error("bad compression, " + v)),
            RequiredAcks.WAIT_FOR_ALL,
            Bound.<RequiredAcks>none(),
            "`no_response` (acks=0), `wait_for_local` (1) or `wait_for_all` (all)");
    public static final ConfigKey<Duration> SHUTDOWN_TIMEOUT = ConfigKey.of(
            "proxies.<name>.producer.shutdown_timeout", Type.DURATION, Duration.ofSeconds(30),
            Bound.notNegative(),
            "on stop, how long accepted messages still have to reach Kafka");
    public static final ConfigKey<Partitioner> PARTITIONER = ConfigKey.of(
            "proxies.<name>.producer.partitioner", Type.choice(Partitioner.class), Partitioner.HASH,
            Bound.<Partitioner>none(),
            "`hash` (the original's hash of the key; random without one), `random` or `roundrobin`");
    public static final ConfigKey<Duration> TIMEOUT = ConfigKey.of(
            "proxies.<name>.producer.timeout", Type.DURATION, Duration.ofSeconds(10),
            Bound.notNegative(),
            "how long the broker may take for replication before it answers a produce");

    /** The section's keys, in the order the config summary and the README list them. */
    public static final List<ConfigKey<?>> KEYS = List.of(CHANNEL_BUFFER_SIZE, MAX_MESSAGE_BYTES, COMPRESSION,
            FLUSH_BYTES, FLUSH_FREQUENCY, RETRY_BACKOFF, RETRY_MAX, REQUIRED_ACKS, SHUTDOWN_TIMEOUT, PARTITIONER,
            TIMEOUT);

    public static final ProducerConfig DEFAULT = new ProducerConfig(Settings.defaults(KEYS), false);

    private final Settings values;
    private final boolean flushFrequencyExplicit;

    private ProducerConfig(Settings values, boolean flushFrequencyExplicit) {
        this.values = values;
        this.flushFrequencyExplicit = flushFrequencyExplicit;
    }

    /** This section with {@code key} set to {@code value}; setting {@code flush_frequency} writes it explicitly. */
    public <T> ProducerConfig with(ConfigKey<T> key, T value) {
        return new ProducerConfig(values.with(key, value), flushFrequencyExplicit || key.equals(FLUSH_FREQUENCY));
    }

    /** This section with every key the YAML section names read from it. */
    ProducerConfig read(YamlSection section) {
        return new ProducerConfig(values.read(section), flushFrequencyExplicit || section.has(FLUSH_FREQUENCY.name()));
    }

    Settings settings() {
        return values;
    }

    /** Whether {@code flush_frequency} was written in the config file (not a key of its own). */
    public boolean flushFrequencyExplicit() {
        return flushFrequencyExplicit;
    }

    public int channelBufferSize() {
        return values.get(CHANNEL_BUFFER_SIZE);
    }

    public int maxMessageBytes() {
        return values.get(MAX_MESSAGE_BYTES);
    }

    public Compression compression() {
        return values.get(COMPRESSION);
    }

    public int flushBytes() {
        return values.get(FLUSH_BYTES);
    }

    public Duration flushFrequency() {
        return values.get(FLUSH_FREQUENCY);
    }

    public Duration retryBackoff() {
        return values.get(RETRY_BACKOFF);
    }

    public int retryMax() {
        return values.get(RETRY_MAX);
    }

    public RequiredAcks requiredAcks() {
        return values.get(REQUIRED_ACKS);
    }

    public Duration shutdownTimeout() {
        return values.get(SHUTDOWN_TIMEOUT);
    }

    public Partitioner partitioner() {
        return values.get(PARTITIONER);
    }

    public Duration timeout() {
        return values.get(TIMEOUT);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProducerConfig p && values.equals(p.values)
               && flushFrequencyExplicit == p.flushFrequencyExplicit;
    }

    @Override
    public int hashCode() {
        return values.hashCode() * 31 + Boolean.hashCode(flushFrequencyExplicit);
    }

    @Override
    public String toString() {
        return "ProducerConfig" + values + (flushFrequencyExplicit ? " (flush_frequency written)" : "");
    }
}
