package io.kafkapixy;

import java.util.List;

import io.kafkapixy.config.CommandLine;
import io.kafkapixy.config.PixyConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code -embeddedKafka} changes in the config: the default cluster's brokers, nothing else; and it is refused
 * where the command line names those brokers itself.
 */
class LauncherTest {

    @Test
    void aConfigThatLeavesTheDefaultClustersBrokersAloneRunsOnTheEmbeddedBroker() {
        PixyConfig shareQuickStart = io.kafkapixy.config.ConfigLoader.fromYaml("""
                proxies:
                  default:
                    consumer:
                      membership: share
                      ack_timeout: 10s
                """, "kp_test");

        assertFalse(Launcher.namesBrokers(CommandLine.parse("-embeddedKafka", "-config", "q.yaml"), shareQuickStart));
        assertFalse(Launcher.namesBrokers(CommandLine.parse("-embeddedKafka"), PixyConfig.defaults("kp_test")));
    }

    @Test
    void brokersNamedByTheConfigOrByKafkaPeersAreNotReplaced() {
        PixyConfig named = io.kafkapixy.config.ConfigLoader.fromYaml("""
                proxies:
                  default:
                    kafka:
                      seed_peers: [kafka-1:9092]
                """, "kp_test");
        CommandLine peers = CommandLine.parse("-embeddedKafka", "-kafkaPeers", "k:9092");

        assertTrue(Launcher.namesBrokers(CommandLine.parse("-embeddedKafka", "-config", "real.yaml"), named));
        assertTrue(Launcher.namesBrokers(peers, peers.applyTo(PixyConfig.defaults("kp_test"))));
    }

    @Test
    void theEmbeddedBrokerReplacesOnlyTheDefaultClustersSeedPeers() {
        PixyConfig config = PixyConfig.defaults("kp_test").withAccessLog(true);

        PixyConfig embedded = Launcher.withDefaultClusterAt(config, "127.0.0.1:9999");

        assertEquals(List.of("127.0.0.1:9999"), embedded.defaultProxy().kafka().seedPeers());
        assertTrue(embedded.accessLog());
        assertEquals(config.withProxies(embedded.proxies()), embedded);
    }
}
