package io.kafkapixy.proxy;

import io.kafkapixy.consumer.ConsumerMetrics;
import io.kafkapixy.producer.ProducerMetrics;

/** The meters of one cluster's producer and consumers, as the proxy of that cluster reports them. */
public interface ClusterMetrics {

    ProducerMetrics producer();

    ConsumerMetrics consumers();
}
