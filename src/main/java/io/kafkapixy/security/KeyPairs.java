package io.kafkapixy.security;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;

/** Whether a private key belongs to a public key: a signature made with one verifies with the other. */
final class KeyPairs {

    private static final byte[] PROBE = "kafka-pixy key pair check".getBytes(StandardCharsets.US_ASCII);

    private KeyPairs() {
    }

    static boolean matches(PublicKey publicKey, PrivateKey privateKey) {
        String algorithm = switch (privateKey.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            case "DSA" -> "SHA256withDSA";
            default -> null;
        };
        if (algorithm == null || !publicKey.getAlgorithm().equals(privateKey.getAlgorithm())
                                  && !(algorithm.equals("Ed25519"))) {
            return false;
        }
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(privateKey);
            signer.update(PROBE);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(PROBE);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }
}
