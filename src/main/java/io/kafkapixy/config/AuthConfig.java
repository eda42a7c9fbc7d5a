package io.kafkapixy.config;

import java.util.List;

import io.kafkapixy.config.ConfigKey.Bound;
import io.kafkapixy.config.ConfigKey.Type;

/**
 * Top-level {@code auth} (new in this project): who may call the APIs, and what each client may do. Bearer tokens
 * that may do everything, named clients with their permissions, and JWTs from the operators' identity provider
 * ({@code auth.jwt}).
 */
public final class AuthConfig {

    public static final ConfigKey<String> BEARER_TOKENS_FILE = ConfigKey.of(
            "auth.bearer_tokens_file", Type.STRING, "",
            Bound.<String>none(),
            "a file of bearer tokens both APIs require, one per line, `#` comments (see Security)");
    public static final ConfigKey<String> BEARER_TOKENS_ENV = ConfigKey.of(
            "auth.bearer_tokens_env", Type.STRING, "",
            Bound.<String>none(),
            "an environment variable holding more such tokens, separated by commas or spaces");
    public static final ConfigKey<String> CLIENTS_FILE = ConfigKey.of(
            "auth.clients_file", Type.STRING, "",
            Bound.<String>none(),
            "named clients (YAML): their tokens, JWT and certificate subjects, and what each may do on which topics "
            + "and groups; read again when it changes (see Security)");
    public static final ConfigKey<String> JWKS_PATH = ConfigKey.of(
            "auth.jwt.jwks_path", Type.STRING, "",
            Bound.<String>none(),
            "the identity provider's keys as a JWKS file, for JWTs sent as bearer tokens; read again when it changes");
    public static final ConfigKey<String> JWKS_URL = ConfigKey.of(
            "auth.jwt.jwks_url", Type.STRING, "",
            Bound.<String>none(),
            "or the URL the provider publishes them at: cached, fetched again for a key id it does not hold");
    public static final ConfigKey<String> ISSUER = ConfigKey.of(
            "auth.jwt.issuer", Type.STRING, "",
            Bound.<String>none(),
            "the `iss` a JWT must carry");
    public static final ConfigKey<String> AUDIENCE = ConfigKey.of(
            "auth.jwt.audience", Type.STRING, "",
            Bound.<String>none(),
            "the `aud` a JWT must name");

    private static final List<ConfigKey<?>> SECTION_KEYS = List.of(BEARER_TOKENS_FILE, BEARER_TOKENS_ENV, CLIENTS_FILE);
    private static final List<ConfigKey<?>> JWT_KEYS = List.of(JWKS_PATH, JWKS_URL, ISSUER, AUDIENCE);
    /** The section's keys, in the order the config summary and the README list them. */
    public static final List<ConfigKey<?>> KEYS = List.of(BEARER_TOKENS_FILE, BEARER_TOKENS_ENV, CLIENTS_FILE,
            JWKS_PATH, JWKS_URL, ISSUER, AUDIENCE);

    public static final AuthConfig NONE = new AuthConfig(Settings.defaults(SECTION_KEYS), Settings.defaults(JWT_KEYS));

    private final Settings values;
    private final Settings jwt;

    private AuthConfig(Settings values, Settings jwt) {
        this.values = values;
        this.jwt = jwt;
    }

    /** This section with {@code key} set to {@code value}. */
    public <T> AuthConfig with(ConfigKey<T> key, T value) {
        return JWT_KEYS.contains(key) ? new AuthConfig(values, jwt.with(key, value))
                : new AuthConfig(values.with(key, value), jwt);
    }

    /** This section with every key the YAML section names read from it. */
    AuthConfig read(YamlSection section) {
        return new AuthConfig(values.read(section), jwt.read(section.section("jwt")));
    }

    Settings settings() {
        return values;
    }

    Settings jwtSettings() {
        return jwt;
    }

    public String bearerTokensFile() {
        return values.get(BEARER_TOKENS_FILE);
    }

    public String bearerTokensEnv() {
        return values.get(BEARER_TOKENS_ENV);
    }

    public String clientsFile() {
        return values.get(CLIENTS_FILE);
    }

    public String jwksPath() {
        return jwt.get(JWKS_PATH);
    }

    public String jwksUrl() {
        return jwt.get(JWKS_URL);
    }

    public String issuer() {
        return jwt.get(ISSUER);
    }

    public String audience() {
        return jwt.get(AUDIENCE);
    }

    /** Whether bearer tokens are configured. */
    public boolean tokens() {
        return !bearerTokensFile().isEmpty() || !bearerTokensEnv().isEmpty();
    }

    /** Whether JWTs are accepted: a key source is named. */
    public boolean jwtEnabled() {
        return !jwksPath().isEmpty() || !jwksUrl().isEmpty();
    }

    /** Whether calls need a credential: any of tokens, named clients or JWTs is configured. */
    public boolean enabled() {
        return tokens() || !clientsFile().isEmpty() || jwtEnabled();
    }

    /** What is inconsistent in the section, for the config's validation. */
    List<String> problems() {
        List<String> problems = new java.util.ArrayList<>();
        if (!jwksPath().isEmpty() && !jwksUrl().isEmpty()) {
            problems.add("auth.jwt.jwks_path and auth.jwt.jwks_url cannot both be set");
        }
        boolean claims = !issuer().isEmpty() || !audience().isEmpty();
        if (jwtEnabled() && (issuer().isEmpty() || audience().isEmpty())) {
            problems.add("auth.jwt needs issuer and audience");
        } else if (claims && !jwtEnabled()) {
            problems.add("auth.jwt needs jwks_path or jwks_url");
        }
        return problems;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AuthConfig other && values.equals(other.values) && jwt.equals(other.jwt);
    }

    @Override
    public int hashCode() {
        return values.hashCode() * 31 + jwt.hashCode();
    }

    @Override
    public String toString() {
        return "AuthConfig" + values + jwt;
    }
}
