package io.kafkapixy.config;

import java.util.List;

/**
 * {@code proxies.<name>.net.sasl}: the original's SASL/PLAIN keys, plus {@code mechanism} (new in this project):
 * {@code PLAIN} (the default, the original's only one), {@code SCRAM-SHA-256} or {@code SCRAM-SHA-512}.
 * {@code handshake} is accepted for compatibility; kafka-clients always sends the SASL handshake, which every broker
 * since Kafka 0.10 expects.
 */
public record SaslConfig(boolean enable, boolean handshake, String user, String password, String mechanism) {

    public static final List<String> MECHANISMS = List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");

    public static final SaslConfig DEFAULT = new SaslConfig(false, false, "", "", "PLAIN");

    /** The original's four keys, mechanism PLAIN. */
    public SaslConfig(boolean enable, boolean handshake, String user, String password) {
        this(enable, handshake, user, password, "PLAIN");
    }

    @Override
    public String toString() {
        return "SaslConfig[enable=" + enable + ", handshake=" + handshake + ", user=" + user + ", password="
               + (password.isEmpty() ? "" : "******") + ", mechanism=" + mechanism + "]";
    }
}
