package io.kafkapixy.server;

import java.util.List;
import java.util.Map;

import io.kafkapixy.Application;
import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.config.KafkaConfig;
import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.config.ProxyConfig;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Settings that are accepted in files but not wired yet stop startup, rather than silently doing something else. */
class UnsupportedSettingsTest {

    @Test
    void zooKeeperMembershipIsRefusedRatherThanSplittingASharedGroup() {
        ProxyConfig p = RunningPixy.proxy(TestKafka.get().bootstrap());
        ConsumerConfig c = ConsumerConfig.DEFAULT;
        ProxyConfig zk = p.withConsumer(new ConsumerConfig(c.disabled(), c.ackTimeout(), c.channelBufferSize(),
                c.fetchMaxBytes(), c.fetchMaxWait(), c.longPollingTimeout(), c.maxPendingMessages(), c.maxRetries(),
                c.offsetsCommitInterval(), c.rebalanceDelay(), c.retryBackoff(), c.subscriptionTimeout(),
                ConsumerConfig.Membership.ZOOKEEPER));

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Application.start(config(zk)));

        assertEquals("consumer.membership: zookeeper is not supported yet by this version", e.getMessage());
    }

    @Test
    void tlsToKafkaIsRefusedRatherThanConnectingInPlaintext() {
        ProxyConfig p = RunningPixy.proxy(TestKafka.get().bootstrap());
        KafkaConfig k = p.kafka();
        ProxyConfig tls = p.withKafka(new KafkaConfig(k.seedPeers(), k.version(), true, "", "", "", false));

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Application.start(config(tls)));

        assertEquals("kafka.tls and net.sasl are not supported yet by this version", e.getMessage());
    }

    private static PixyConfig config(ProxyConfig proxy) {
        PixyConfig base = RunningPixy.config(TestKafka.get().bootstrap());
        return new PixyConfig(base.grpcAddr(), base.tcpAddr(), "", "default", Map.of("default", proxy), base.tls(),
                List.copyOf(base.logging()));
    }
}
