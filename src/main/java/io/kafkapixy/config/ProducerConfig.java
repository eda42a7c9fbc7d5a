package io.kafkapixy.config;

import java.time.Duration;

/**
 * {@code proxies.<name>.producer}. {@code flushFrequencyExplicit} records whether {@code flush_frequency} was
 * written in the config file: only then is it honoured as {@code linger.ms} (the default, 500 ms, as a linger would
 * add half a second to every sync produce).
 */
public record ProducerConfig(int channelBufferSize,
                             int maxMessageBytes,
                             Compression compression,
                             int flushBytes,
                             Duration flushFrequency,
                             boolean flushFrequencyExplicit,
                             Duration retryBackoff,
                             int retryMax,
                             RequiredAcks requiredAcks,
                             Duration shutdownTimeout,
                             Partitioner partitioner,
                             Duration timeout) {

    public static final ProducerConfig DEFAULT = new ProducerConfig(4096, 1_000_000, Compression.SNAPPY, 1_048_576,
            Duration.ofMillis(500), false, Duration.ofSeconds(10), 6, RequiredAcks.WAIT_FOR_ALL,
            Duration.ofSeconds(30), Partitioner.HASH, Duration.ofSeconds(10));

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

    public ProducerConfig withPartitioner(Partitioner p) {
        return new ProducerConfig(channelBufferSize, maxMessageBytes, compression, flushBytes, flushFrequency,
                flushFrequencyExplicit, retryBackoff, retryMax, requiredAcks, shutdownTimeout, p, timeout);
    }
}
