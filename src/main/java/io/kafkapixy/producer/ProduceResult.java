package io.kafkapixy.producer;

/** Where a synchronously produced message landed. */
public record ProduceResult(int partition, long offset) {
}
