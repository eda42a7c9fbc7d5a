package io.kafkapixy.security;

import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import javax.security.auth.x500.X500Principal;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.kafkapixy.testing.MutableClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Who a request acts as: a configured bearer token may do everything; a named client's token, JWT subject or
 * certificate subject acts as that client; a valid JWT or a verified certificate that is no client's is known but
 * may do nothing; anything else is not authenticated. With nothing configured, anyone may do everything. A
 * connection's last token is remembered only while it is the same token of the same credentials, a JWT for half a
 * minute at most and not past its expiry.
 */
class IdentitiesTest {

    private static final Instant NOW = Instant.parse("2026-12-07T12:00:00Z");
    private static final ClientsFile FILE = ClientsFile.parse("""
            clients:
              - name: orders-writer
                tokens: [s3cr3t]
                jwt_subjects: [svc-orders]
                cert_subjects: ["CN=orders"]
                allow:
                  - {operations: [write], topics: ["orders.*"]}
            """);

    private final RSAKey key = rsa();
    private final MutableClock clock = new MutableClock(NOW);
    private final AtomicReference<ClientsFile> file = new AtomicReference<>(FILE);
    private final Identities identities = new Identities(
            Optional.of(BearerTokens.load("", "TOKENS", name -> "admin-token")), () -> Optional.of(file.get()),
            Optional.of(new JwtCheck(new ImmutableJWKSet<>(new JWKSet(key.toPublicJWK())), "https://idp", "pixy",
                    clock)));

    @Test
    void aConfiguredBearerTokenMayDoEverything() {
        assertSame(Identities.BEARER_TOKEN, identities.identify("Bearer admin-token", null).orElseThrow());
        assertTrue(Identities.BEARER_TOKEN.may(Operation.ALTER, "any", "any"));
    }

    @Test
    void aNamedClientsTokenJwtOrCertificateActsAsIt() throws Exception {
        assertEquals("orders-writer", identities.identify("bearer s3cr3t", null).orElseThrow().name());
        assertEquals("orders-writer", identities.identify("Bearer " + jwt("svc-orders"), null).orElseThrow().name());
        assertEquals("orders-writer", identities.identify(null, new X500Principal("CN=orders")).orElseThrow().name());
    }

    @Test
    void aValidJwtOrVerifiedCertificateOfNoClientIsKnownWithNoPermission() throws Exception {
        NamedClient viaJwt = identities.identify("Bearer " + jwt("svc-unknown"), null).orElseThrow();
        NamedClient viaCert = identities.identify(null, new X500Principal("CN=stranger")).orElseThrow();

        assertEquals("svc-unknown", viaJwt.name());
        assertEquals("CN=stranger", viaCert.name());
        for (Operation o : Operation.values()) {
            assertFalse(viaJwt.may(o, "t", "g"));
            assertFalse(viaCert.may(o, "t", "g"));
        }
    }

    @Test
    void anUnknownTokenAnInvalidJwtOrNothingIsNotAuthenticated() throws Exception {
        assertEquals(Optional.empty(), identities.identify("Bearer guess", null));
        assertEquals(Optional.empty(), identities.identify("Bearer " + jwt("svc-orders").replace('a', 'b'), null));
        assertEquals(Optional.empty(), identities.identify("Basic czNjcjN0", null));
        assertEquals(Optional.empty(), identities.identify(null, null));
    }

    @Test
    void withNothingConfiguredAnyoneMayDoEverything() {
        Identities open = new Identities(Optional.empty(), Optional::empty, Optional.empty());

        assertSame(Identities.ANYONE, open.identify(null, null).orElseThrow());
    }

    @Test
    void withOnlyTokensAVerifiedCertificateAloneIsNotAuthenticated() {
        Identities tokensOnly = new Identities(Optional.of(BearerTokens.load("", "T", name -> "t1")),
                Optional::empty, Optional.empty());

        assertEquals(Optional.empty(), tokensOnly.identify(null, new X500Principal("CN=orders")));
    }

    @Test
    void aConnectionsTokenIsRecalledOnlyWhileTheClientsFileItWasFoundInIsTheCurrentOne() {
        ConnectionIdentity connection = new ConnectionIdentity();
        assertEquals("orders-writer", identities.identify("Bearer s3cr3t", null, connection).orElseThrow().name());
        assertEquals("orders-writer", identities.identify("Bearer s3cr3t", null, connection).orElseThrow().name());

        file.set(ClientsFile.parse("""
                clients:
                  - name: orders-reader
                    tokens: [r3ad3r]
                    allow:
                      - {operations: [read], topics: ["orders.*"], groups: ["*"]}
                """));

        assertEquals(Optional.empty(), identities.identify("Bearer s3cr3t", null, connection), "removed on reload");
        assertEquals("orders-reader", identities.identify("Bearer r3ad3r", null, connection).orElseThrow().name());
    }

    @Test
    void anotherTokenOnTheSameConnectionIsLookedUpAsWhatItIs() {
        ConnectionIdentity connection = new ConnectionIdentity();
        assertEquals("orders-writer", identities.identify("Bearer s3cr3t", null, connection).orElseThrow().name());

        assertEquals(Optional.empty(), identities.identify("Bearer s3cr3u", null, connection), "one letter off");
        assertEquals(Optional.empty(), identities.identify("Bearer s3cr3", null, connection), "a prefix");
        assertSame(Identities.BEARER_TOKEN, identities.identify("Bearer admin-token", null, connection).orElseThrow());
        assertEquals("orders-writer", identities.identify("Bearer s3cr3t", null, connection).orElseThrow().name());
    }

    @Test
    void aJwtIsRecalledOnItsConnectionForHalfAMinuteAtMostWithoutItsSignatureCheckedAgain() throws Exception {
        AtomicReference<JWKSet> published = new AtomicReference<>(new JWKSet(key.toPublicJWK()));
        Identities rotating = rotating(published);
        ConnectionIdentity connection = new ConnectionIdentity();
        String token = "Bearer " + jwt("svc-orders", NOW.plusSeconds(600));
        assertEquals("orders-writer", rotating.identify(token, null, connection).orElseThrow().name());

        published.set(new JWKSet());
        clock.advance(Duration.ofSeconds(29));

        assertEquals("orders-writer", rotating.identify(token, null, connection).orElseThrow().name(), "recalled");
        assertEquals(Optional.empty(), rotating.identify(token, null, new ConnectionIdentity()), "another connection");
        clock.advance(Duration.ofSeconds(2));
        assertEquals(Optional.empty(), rotating.identify(token, null, connection), "checked again: its key is gone");
    }

    @Test
    void aJwtIsNotRecalledPastItsExpiry() throws Exception {
        AtomicReference<JWKSet> published = new AtomicReference<>(new JWKSet(key.toPublicJWK()));
        Identities rotating = rotating(published);
        ConnectionIdentity connection = new ConnectionIdentity();
        String token = "Bearer " + jwt("svc-orders", NOW.plusSeconds(10));
        assertEquals("orders-writer", rotating.identify(token, null, connection).orElseThrow().name());

        published.set(new JWKSet());
        clock.advance(Duration.ofSeconds(11));

        assertEquals(Optional.empty(), rotating.identify(token, null, connection));
    }

    /** Identities whose JWT keys are what {@code published} holds at each check. */
    private Identities rotating(AtomicReference<JWKSet> published) {
        return new Identities(Optional.empty(), () -> Optional.of(file.get()), Optional.of(new JwtCheck(
                (selector, context) -> selector.select(published.get()), "https://idp", "pixy", clock)));
    }

    private String jwt(String subject) throws Exception {
        return jwt(subject, NOW.plusSeconds(600));
    }

    private String jwt(String subject, Instant expires) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(),
                new JWTClaimsSet.Builder().subject(subject).issuer("https://idp").audience("pixy")
                        .expirationTime(Date.from(expires)).build());
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    private static RSAKey rsa() {
        try {
            return new RSAKeyGenerator(2048).keyID("k1").generate();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
