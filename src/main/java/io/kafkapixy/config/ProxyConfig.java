package io.kafkapixy.config;

/** One entry of {@code proxies}: a Kafka cluster and how this instance produces to and consumes from it. */
public record ProxyConfig(String clientId,
                          KafkaConfig kafka,
                          NetConfig net,
                          ZooKeeperConfig zooKeeper,
                          ProducerConfig producer,
                          ConsumerConfig consumer) {

    public static ProxyConfig defaults(String clientId) {
        return new ProxyConfig(clientId, KafkaConfig.DEFAULT, NetConfig.DEFAULT, ZooKeeperConfig.DEFAULT,
                ProducerConfig.DEFAULT, ConsumerConfig.DEFAULT);
    }

    public ProxyConfig withKafka(KafkaConfig kafka) {
        return new ProxyConfig(clientId, kafka, net, zooKeeper, producer, consumer);
    }

    public ProxyConfig withNet(NetConfig net) {
        return new ProxyConfig(clientId, kafka, net, zooKeeper, producer, consumer);
    }

    public ProxyConfig withZooKeeper(ZooKeeperConfig zooKeeper) {
        return new ProxyConfig(clientId, kafka, net, zooKeeper, producer, consumer);
    }

    public ProxyConfig withProducer(ProducerConfig producer) {
        return new ProxyConfig(clientId, kafka, net, zooKeeper, producer, consumer);
    }

    public ProxyConfig withConsumer(ConsumerConfig consumer) {
        return new ProxyConfig(clientId, kafka, net, zooKeeper, producer, consumer);
    }
}
