package io.kafkapixy.config;

/** {@code proxies.<name>.net.sasl}: the original's SASL/PLAIN keys. */
public record SaslConfig(boolean enable, boolean handshake, String user, String password) {

    public static final SaslConfig DEFAULT = new SaslConfig(false, false, "", "");

    @Override
    public String toString() {
        return "SaslConfig[enable=" + enable + ", handshake=" + handshake + ", user=" + user + ", password="
               + (password.isEmpty() ? "" : "******") + "]";
    }
}
