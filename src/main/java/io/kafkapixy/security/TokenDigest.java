package io.kafkapixy.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A bearer token's SHA-256, by which tokens are kept and compared: a token given as its digest in a clients file is
 * never known in plain, and digests compare in constant time. As a map key its hash is its first four bytes (a
 * digest is uniformly distributed), so looking a presented token up costs one SHA-256 and no formatting.
 */
final class TokenDigest {

    /** Never used itself, only cloned: a clone is independent, so callers on any thread may digest at once. */
    private static final MessageDigest SHA256 = sha256();

    private final byte[] bytes;

    private TokenDigest(byte[] bytes) {
        this.bytes = bytes;
    }

    static TokenDigest of(String token) {
        try {
            // a clone: MessageDigest.getInstance looks the provider up on every call
            MessageDigest sha256 = (MessageDigest) SHA256.clone();
            return new TokenDigest(sha256.digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @param hex 64 hexadecimal digits, as checked by the caller */
    static TokenDigest ofHex(String hex) {
        return new TokenDigest(HexFormat.of().parseHex(hex));
    }

    String hex() {
        return HexFormat.of().formatHex(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TokenDigest other && MessageDigest.isEqual(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return (bytes[0] & 0xff) << 24 | (bytes[1] & 0xff) << 16 | (bytes[2] & 0xff) << 8 | bytes[3] & 0xff;
    }

    @Override
    public String toString() {
        return "sha256:" + hex();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
