package io.kafkapixy.security;

import java.net.URL;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Optional;
import java.util.Set;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;

/**
 * Checks a JWT from the operators' identity provider with a well-kept library (Nimbus JOSE+JWT): signed with RS256 or
 * ES256 by a key of the provider's JWKS (chosen by the token's {@code kid}), {@code iss} and {@code aud} as configured,
 * {@code exp} not passed and {@code nbf} reached, within {@link #CLOCK_SKEW}, and a {@code sub}. Anything else, an
 * unsigned token or one signed with a shared secret included, is not valid. Thread-safe.
 */
public final class JwtCheck {

    /** How far the proxy's clock and the provider's may disagree on {@code exp} and {@code nbf}. */
    public static final Duration CLOCK_SKEW = Duration.ofSeconds(60);
    private static final Set<JWSAlgorithm> ALGORITHMS = Set.of(JWSAlgorithm.RS256, JWSAlgorithm.ES256);

    private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
    private final Clock clock;

    /** A valid token's subject, and when it expires. */
    public record Verified(String subject, Instant expires) { }

    /**
     * @param keys     the provider's keys (a JWKS file's, or its URL's, cached and refreshed on an unknown {@code kid})
     * @param issuer   the {@code iss} a token must carry
     * @param audience the {@code aud} a token must name (this proxy)
     * @param clock    now, for {@code exp} and {@code nbf}
     */
    public JwtCheck(JWKSource<SecurityContext> keys, String issuer, String audience, Clock clock) {
        this.clock = clock;
        processor.setJWSKeySelector(new JWSVerificationKeySelector<>(ALGORITHMS, keys));
        DefaultJWTClaimsVerifier<SecurityContext> claims = new DefaultJWTClaimsVerifier<>(audience,
                new JWTClaimsSet.Builder().issuer(issuer).build(), Set.of("sub", "exp")) {
            @Override
            protected Date currentTime() {
                return Date.from(clock.instant());
            }
        };
        claims.setMaxClockSkew((int) CLOCK_SKEW.toSeconds());
        processor.setJWTClaimsSetVerifier(claims);
    }

    /** The keys of a JWKS document (its public keys only; private parts, if any, are dropped). */
    public static JWKSource<SecurityContext> keys(String jwksJson) throws ParseException {
        return new ImmutableJWKSet<>(JWKSet.parse(jwksJson).toPublicJWKSet());
    }

    /** A JWKS document's public keys, for a {@link ReloadedFile}: what is wrong with it as the exception's text. */
    public static JWKSet parseJwks(String jwksJson) {
        try {
            return JWKSet.parse(jwksJson).toPublicJWKSet();
        } catch (ParseException e) {
            throw new IllegalArgumentException("not a JWKS document: " + e.getMessage());
        }
    }

    /** The keys of a JWKS file as last read well: a rotated file applies without a restart. */
    public static JWKSource<SecurityContext> keysIn(ReloadedFile<JWKSet> file) {
        return (selector, context) -> selector.select(file.current());
    }

    /** {@code auth.jwt.jwks_url} as a URL; IllegalArgumentException when it is not one. */
    public static URL jwksUrl(String text) {
        try {
            return java.net.URI.create(text).toURL();
        } catch (IllegalArgumentException | java.net.MalformedURLException e) {
            throw new IllegalArgumentException("auth.jwt.jwks_url is not a URL: " + text);
        }
    }

    /**
     * The keys the provider publishes at {@code url}, fetched by the library: cached (5 minutes), fetched again when a
     * token names a {@code kid} the cache does not hold (a rotated key), at most once per 30 seconds, and retried once
     * on a network error.
     */
    public static JWKSource<SecurityContext> keysAt(URL url) {
        return JWKSourceBuilder.<SecurityContext>create(url).retrying(true).build();
    }

    /** The subject of {@code token} when it is valid; empty when it is not, for whatever reason. */
    public Optional<String> subject(String token) {
        return verify(token).map(Verified::subject);
    }

    /** {@code token}'s subject and expiry when it is valid; empty when it is not, for whatever reason. */
    public Optional<Verified> verify(String token) {
        try {
            JWTClaimsSet claims = processor.process(token, null);
            // the claims verifier requires both
            return Optional.of(new Verified(claims.getSubject(), claims.getExpirationTime().toInstant()));
        } catch (ParseException | BadJOSEException | JOSEException e) {
            return Optional.empty();
        }
    }

    /** The clock {@code exp} and {@code nbf} are checked against. */
    Clock clock() {
        return clock;
    }
}
