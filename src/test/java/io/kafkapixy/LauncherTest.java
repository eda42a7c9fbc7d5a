package io.kafkapixy;

import java.util.List;

import io.kafkapixy.config.PixyConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What {@code -embeddedKafka} changes in the config: the default cluster's brokers, nothing else. */
class LauncherTest {

    @Test
    void theEmbeddedBrokerReplacesOnlyTheDefaultClustersSeedPeers() {
        PixyConfig config = PixyConfig.defaults("kp_test").withAccessLog(true);

        PixyConfig embedded = Launcher.withDefaultClusterAt(config, "127.0.0.1:9999");

        assertEquals(List.of("127.0.0.1:9999"), embedded.defaultProxy().kafka().seedPeers());
        assertTrue(embedded.accessLog());
        assertEquals(config.withProxies(embedded.proxies()), embedded);
    }
}
