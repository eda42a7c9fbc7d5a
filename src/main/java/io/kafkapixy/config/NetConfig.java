package io.kafkapixy.config;

import java.time.Duration;

/** {@code proxies.<name>.net}: network timeouts and SASL towards Kafka. */
public record NetConfig(Duration dialTimeout, Duration readTimeout, Duration writeTimeout, SaslConfig sasl) {

    public static final NetConfig DEFAULT = new NetConfig(Duration.ofSeconds(30), Duration.ofSeconds(30),
            Duration.ofSeconds(30), SaslConfig.DEFAULT);
}
