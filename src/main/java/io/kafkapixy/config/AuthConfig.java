package io.kafkapixy.config;

/**
 * Top-level {@code auth} (new in this project): bearer tokens that both APIs require, read from a file (one token per
 * line; blank lines and {@code #} comments skipped) and/or an environment variable (tokens separated by commas or
 * white space). Neither set means no token is required. {@code /_ping}, {@code /health*} and the gRPC health service
 * stay open.
 */
public record AuthConfig(String bearerTokensFile, String bearerTokensEnv) {

    public static final AuthConfig NONE = new AuthConfig("", "");

    public boolean enabled() {
        return !bearerTokensFile.isEmpty() || !bearerTokensEnv.isEmpty();
    }
}
