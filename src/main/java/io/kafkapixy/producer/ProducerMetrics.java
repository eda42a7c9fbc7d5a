package io.kafkapixy.producer;

import java.util.function.LongSupplier;

import io.kafkapixy.errors.ErrorKind;

/**
 * What a {@link PixyProducer} reports about its traffic. Implementations are thread-safe and cheap: they are called
 * on every produce, from request threads and from the Kafka producer's I/O thread.
 */
public interface ProducerMetrics {

    /** Reports nothing. */
    ProducerMetrics NONE = new ProducerMetrics() {
        @Override
        public void produced(String topic, int bytes, long nanos) {
        }

        @Override
        public void failed(String topic, ErrorKind kind) {
        }

        @Override
        public void asyncPending(LongSupplier pending) {
        }
    };

    /**
     * A message reached Kafka {@code nanos} after it was handed to the producer; {@code bytes} as counted against
     * {@code max_message_bytes}.
     */
    void produced(String topic, int bytes, long nanos);

    /**
     * A produce failed. {@code topic} is empty when the topic does not exist, so requests for made-up names cannot
     * grow the label set.
     */
    void failed(String topic, ErrorKind kind);

    /** Registers the number of async messages accepted and not yet answered by Kafka. */
    void asyncPending(LongSupplier pending);
}
