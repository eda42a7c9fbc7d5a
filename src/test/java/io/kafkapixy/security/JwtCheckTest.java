package io.kafkapixy.security;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A JWT acts as its subject only when the identity provider's key signed it (RS256 or ES256, found by {@code kid}),
 * it names the configured issuer and this proxy as audience, and it is within its {@code nbf}..{@code exp} give or take
 * a minute. Keys made by the test; the clock fixed.
 */
class JwtCheckTest {

    private static final Instant NOW = Instant.parse("2026-12-07T12:00:00Z");
    private static final String ISSUER = "https://idp.example";
    private static final String AUDIENCE = "kafka-pixy";

    private final RSAKey rsa = generateRsa("rsa-1");
    private final ECKey ec = generateEc("ec-1");
    private final JwtCheck check = new JwtCheck(keys(rsa, ec), ISSUER, AUDIENCE, Clock.fixed(NOW, ZoneOffset.UTC));

    @Test
    void aTokenSignedByTheProvidersRsaOrEcKeyActsAsItsSubject() throws Exception {
        assertEquals(Optional.of("svc-orders"), check.subject(sign(rsa, claims("svc-orders"))));
        assertEquals(Optional.of("svc-audit"), check.subject(sign(ec, claims("svc-audit"))));
    }

    @Test
    void aTokenSignedByAnotherKeyUnderAKnownKidIsNotValid() throws Exception {
        RSAKey impostor = generateRsa("rsa-1");

        assertEquals(Optional.empty(), check.subject(sign(impostor, claims("svc-orders"))));
    }

    @Test
    void aTokenWhoseKidTheProviderDoesNotHaveIsNotValid() throws Exception {
        assertEquals(Optional.empty(), check.subject(sign(generateRsa("rsa-2"), claims("svc-orders"))));
    }

    @Test
    void anExpiredTokenIsNotValidPastTheClockSkew() throws Exception {
        JWTClaimsSet justExpired = new JWTClaimsSet.Builder(claims("s"))
                .expirationTime(Date.from(NOW.minusSeconds(30))).build();
        JWTClaimsSet longExpired = new JWTClaimsSet.Builder(claims("s"))
                .expirationTime(Date.from(NOW.minus(JwtCheck.CLOCK_SKEW).minusSeconds(1))).build();

        assertEquals(Optional.of("s"), check.subject(sign(rsa, justExpired)), "within a minute of skew");
        assertEquals(Optional.empty(), check.subject(sign(rsa, longExpired)));
    }

    @Test
    void aTokenNotYetValidIsNotValid() throws Exception {
        JWTClaimsSet later = new JWTClaimsSet.Builder(claims("s"))
                .notBeforeTime(Date.from(NOW.plus(Duration.ofMinutes(5)))).build();

        assertEquals(Optional.empty(), check.subject(sign(rsa, later)));
    }

    @Test
    void aTokenForAnotherAudienceOrFromAnotherIssuerIsNotValid() throws Exception {
        assertEquals(Optional.empty(), check.subject(sign(rsa,
                new JWTClaimsSet.Builder(claims("s")).audience("billing-api").build())));
        assertEquals(Optional.empty(), check.subject(sign(rsa,
                new JWTClaimsSet.Builder(claims("s")).issuer("https://evil.example").build())));
    }

    @Test
    void aTokenWithoutSubjectOrExpiryIsNotValid() throws Exception {
        assertEquals(Optional.empty(), check.subject(sign(rsa,
                new JWTClaimsSet.Builder(claims("s")).subject(null).build())));
        assertEquals(Optional.empty(), check.subject(sign(rsa,
                new JWTClaimsSet.Builder(claims("s")).expirationTime(null).build())));
    }

    @Test
    void anUnsignedTokenOneSignedWithASecretAndGarbageAreNotValid() throws Exception {
        SignedJWT hmac = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID("rsa-1").build(),
                claims("s"));
        hmac.sign(new MACSigner(new byte[32]));

        assertEquals(Optional.empty(), check.subject(new PlainJWT(claims("s")).serialize()));
        assertEquals(Optional.empty(), check.subject(hmac.serialize()));
        assertEquals(Optional.empty(), check.subject("not.a.jwt"));
        assertEquals(Optional.empty(), check.subject(""));
    }

    @Test
    void aJwksDocumentsPublicKeysAreTheKeys() throws Exception {
        String jwks = new JWKSet(List.of(rsa, ec)).toString(false);
        JwtCheck fromDocument = new JwtCheck(JwtCheck.keys(jwks), ISSUER, AUDIENCE, Clock.fixed(NOW, ZoneOffset.UTC));

        assertEquals(Optional.of("svc-orders"), fromDocument.subject(sign(rsa, claims("svc-orders"))));
    }

    @Test
    void aRotatedKeyInTheJwksFileAppliesOnceTheFileIsReadAgain(@TempDir Path dir)
            throws Exception {
        Path file = Files.writeString(dir.resolve("jwks.json"),
                new JWKSet(rsa).toString(true));
        ReloadedFile<JWKSet> jwks = new ReloadedFile<>(file, JwtCheck::parseJwks, "auth.jwt.jwks_path");
        JwtCheck fromFile = new JwtCheck(JwtCheck.keysIn(jwks), ISSUER, AUDIENCE, Clock.fixed(NOW, ZoneOffset.UTC));
        RSAKey next = generateRsa("rsa-2");
        assertEquals(Optional.empty(), fromFile.subject(sign(next, claims("s"))));

        Files.writeString(file, new JWKSet(List.of(rsa.toPublicJWK(), next.toPublicJWK())).toString());
        jwks.refresh();

        assertEquals(Optional.of("s"), fromFile.subject(sign(next, claims("s"))));
        assertEquals(Optional.of("s"), fromFile.subject(sign(rsa, claims("s"))));
    }

    @Test
    void theProvidersJwksUrlIsFetchedCachedAndFetchedAgainForAnUnknownKid() throws Exception {
        AtomicReference<String> published = new AtomicReference<>(new JWKSet(rsa.toPublicJWK()).toString());
        AtomicInteger fetches = new AtomicInteger();
        HttpServer idp = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        idp.createContext("/jwks", exchange -> {
            fetches.incrementAndGet();
            byte[] body = published.get().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        idp.start();
        try {
            URL url = URI.create("http://127.0.0.1:" + idp.getAddress().getPort() + "/jwks").toURL();
            JwtCheck fromUrl = new JwtCheck(JwtCheck.keysAt(url), ISSUER, AUDIENCE, Clock.fixed(NOW, ZoneOffset.UTC));

            assertEquals(Optional.of("a"), fromUrl.subject(sign(rsa, claims("a"))));
            assertEquals(Optional.of("b"), fromUrl.subject(sign(rsa, claims("b"))));
            assertEquals(1, fetches.get(), "cached");

            RSAKey rotated = generateRsa("rsa-2");
            published.set(new JWKSet(List.of(rsa.toPublicJWK(), rotated.toPublicJWK())).toString());
            assertEquals(Optional.of("c"), fromUrl.subject(sign(rotated, claims("c"))), "an unknown kid fetches again");
            assertEquals(2, fetches.get());
        } finally {
            idp.stop(0);
        }
    }

    private static JWTClaimsSet claims(String subject) {
        return new JWTClaimsSet.Builder().subject(subject).issuer(ISSUER).audience(AUDIENCE)
                .issueTime(Date.from(NOW.minusSeconds(60))).expirationTime(Date.from(NOW.plusSeconds(600))).build();
    }

    private static String sign(RSAKey key, JWTClaimsSet claims) throws Exception {
        return sign(new RSASSASigner(key), JWSAlgorithm.RS256, key.getKeyID(), claims);
    }

    private static String sign(ECKey key, JWTClaimsSet claims) throws Exception {
        return sign(new ECDSASigner(key), JWSAlgorithm.ES256, key.getKeyID(), claims);
    }

    private static String sign(JWSSigner signer, JWSAlgorithm alg, String kid, JWTClaimsSet claims) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(alg).keyID(kid).build(), claims);
        jwt.sign(signer);
        return jwt.serialize();
    }

    private static JWKSource<SecurityContext> keys(RSAKey rsa, ECKey ec) {
        return new ImmutableJWKSet<>(new JWKSet(List.of(rsa.toPublicJWK(),
                ec.toPublicJWK())));
    }

    private static RSAKey generateRsa(String kid) {
        try {
            return new RSAKeyGenerator(2048).keyID(kid).generate();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static ECKey generateEc(String kid) {
        try {
            return new ECKeyGenerator(Curve.P_256).keyID(kid).generate();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
