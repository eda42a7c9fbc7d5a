package io.kafkapixy.security;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import javax.security.auth.x500.X500Principal;

/**
 * Who a request acts as, from what it presents: a bearer token (one of {@code auth.bearer_tokens_*}, which may do
 * everything, as before named clients; or a named client's), a JWT in the same header (its {@code sub} a named
 * client's, or known with no permission), or a verified client certificate whose subject is a named client's (or
 * known with no permission). Empty is "not authenticated" (401 / {@code UNAUTHENTICATED}); a client is then asked
 * what it may do (403 / {@code PERMISSION_DENIED} when it may not).
 */
public final class Identities {

    /** What a token of {@code auth.bearer_tokens_file} or {@code _env} acts as: every operation on everything. */
    public static final NamedClient BEARER_TOKEN = everything("bearer-token");
    /** Every request when no credential is configured, as in the original. */
    public static final NamedClient ANYONE = everything("anyone");

    /** How long a connection's calls may go on with a JWT without its signature checked again. */
    public static final Duration JWT_RECALL = Duration.ofSeconds(30);
    private static final String SCHEME = "bearer ";

    private final Optional<BearerTokens> tokens;
    private final Supplier<Optional<ClientsFile>> clients;
    private final Optional<JwtCheck> jwt;
    private final Clock clock;

    /**
     * @param tokens  the tokens that may do everything, if configured
     * @param clients the clients file as last read well, if configured (re-read while the proxy runs)
     * @param jwt     the JWT check, if configured
     */
    public Identities(Optional<BearerTokens> tokens, Supplier<Optional<ClientsFile>> clients, Optional<JwtCheck> jwt) {
        this.tokens = tokens;
        this.clients = clients;
        this.jwt = jwt;
        this.clock = jwt.map(JwtCheck::clock).orElse(Clock.systemUTC());
    }

    /**
     * @param authorization the request's {@code Authorization} value, null when absent
     * @param certificate   the subject of the client certificate the TLS handshake verified, null when none
     * @return who the request acts as; empty when it is not authenticated
     */
    public Optional<NamedClient> identify(String authorization, X500Principal certificate) {
        return identify(authorization, () -> certificate, null);
    }

    /**
     * As {@link #identify(String, X500Principal)} for a call on a connection whose last token is remembered.
     *
     * @param certificate asked only for a request without {@code authorization} (a TLS session asked for a client
     *                    certificate it does not have throws)
     * @param connection  what the call's connection presented before; null when not known
     */
    public Optional<NamedClient> identify(String authorization, Supplier<X500Principal> certificate,
                                          ConnectionIdentity connection) {
        Optional<ClientsFile> file = clients.get();
        if (tokens.isEmpty() && file.isEmpty() && jwt.isEmpty()) {
            return Optional.of(ANYONE);
        }
        if (authorization != null) {
            NamedClient known = connection == null ? null : connection.recall(authorization, file.orElse(null), clock);
            return known != null ? Optional.of(known) : bearer(authorization, file, connection);
        }
        X500Principal subject = file.isPresent() ? certificate.get() : null;
        if (subject != null) {
            return Optional.of(file.get().byCertSubject(subject)
                    .orElseGet(() -> NamedClient.withoutPermissions(subject.getName())));
        }
        return Optional.empty();
    }

    private Optional<NamedClient> bearer(String authorization, Optional<ClientsFile> file,
                                         ConnectionIdentity connection) {
        if (authorization.length() <= SCHEME.length()
            || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return Optional.empty();
        }
        if (tokens.isPresent() && tokens.get().accepts(authorization)) {
            return remembered(authorization, file, connection, BEARER_TOKEN, null);
        }
        String credential = authorization.substring(SCHEME.length()).strip();
        Optional<NamedClient> named = file.flatMap(f -> f.byToken(credential));
        if (named.isPresent()) {
            return remembered(authorization, file, connection, named.get(), null);
        }
        if (jwt.isEmpty()) {
            return named;
        }
        Optional<JwtCheck.Verified> valid = jwt.get().verify(credential);
        if (valid.isEmpty()) {
            return Optional.empty();
        }
        String subject = valid.get().subject();
        NamedClient client = file.flatMap(f -> f.byJwtSubject(subject))
                .orElseGet(() -> NamedClient.withoutPermissions(subject));
        Instant recallEnds = clock.instant().plus(JWT_RECALL);
        Instant expires = valid.get().expires();
        return remembered(authorization, file, connection, client,
                expires.isBefore(recallEnds) ? expires : recallEnds);
    }

    private static Optional<NamedClient> remembered(String authorization, Optional<ClientsFile> file,
                                                    ConnectionIdentity connection, NamedClient client,
                                                    Instant until) {
        if (connection != null) {
            connection.remember(authorization, file.orElse(null), client, until);
        }
        return Optional.of(client);
    }

    private static NamedClient everything(String name) {
        return new NamedClient(name, List.of(new AccessRule(Set.of(Operation.ALL), List.of(new NamePattern("*")),
                List.of(new NamePattern("*")))));
    }
}
