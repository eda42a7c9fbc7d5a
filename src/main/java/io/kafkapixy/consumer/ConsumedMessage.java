package io.kafkapixy.consumer;

import java.util.List;

import org.apache.kafka.common.header.Header;

/**
 * A message handed to one consume request. {@code key} and {@code value} are null when Kafka's are; {@code attempt}
 * is 1 for its first delivery, 2 for the first redelivery, and so on.
 */
public record ConsumedMessage(String topic, int partition, long offset, byte[] key, byte[] value,
                              List<Header> headers, int attempt) {
}
