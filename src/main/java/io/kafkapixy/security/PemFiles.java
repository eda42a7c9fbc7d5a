package io.kafkapixy.security;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * PEM certificates and private keys as the original reads them with Go's {@code crypto/tls}: certificates in any
 * number of {@code CERTIFICATE} blocks, a private key as PKCS#1 ({@code RSA PRIVATE KEY}), SEC1
 * ({@code EC PRIVATE KEY}) or PKCS#8 ({@code PRIVATE KEY}), so the files an existing deployment has work unchanged.
 * Encrypted keys are refused (Go's loader refuses them too).
 */
public final class PemFiles {

    private PemFiles() {
    }

    /** A PEM file that cannot be used; the message says why in Go's words where Go has them. */
    public static final class PemException extends Exception {
        PemException(String message) {
            super(message);
        }
    }

    /**
     * @return the certificates in file order, at least one
     * @throws PemException unreadable, or holds no certificate
     */
    public static List<X509Certificate> certificates(Path file) throws PemException {
        byte[] bytes = read(file);
        try (InputStream in = new java.io.ByteArrayInputStream(bytes)) {
            List<X509Certificate> certs = new ArrayList<>();
            for (var c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                certs.add((X509Certificate) c);
            }
            if (certs.isEmpty()) {
                throw new PemException("no certificate found in " + file);
            }
            return List.copyOf(certs);
        } catch (CertificateException | IOException e) {
            throw new PemException("no valid PEM certificate in " + file + ": " + e.getMessage());
        }
    }

    /**
     * @throws PemException unreadable, no key in it, or an encrypted key
     */
    public static PrivateKey privateKey(Path file) throws PemException {
        byte[] bytes = read(file);
        try (Reader r = new java.io.InputStreamReader(new java.io.ByteArrayInputStream(bytes),
                StandardCharsets.US_ASCII); PEMParser parser = new PEMParser(r)) {
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
                if (o instanceof PEMKeyPair pair) {
                    // the private half only: SEC1 makes the public key optional
                    return converter.getPrivateKey(pair.getPrivateKeyInfo());
                }
                if (o instanceof PrivateKeyInfo info) {
                    return converter.getPrivateKey(info);
                }
                if (o instanceof PEMEncryptedKeyPair || o instanceof PKCS8EncryptedPrivateKeyInfo) {
                    throw new PemException("encrypted private keys are not supported: " + file);
                }
            }
            throw new PemException("tls: failed to find any PEM data in key input: " + file);
        } catch (IOException e) {
            throw new PemException("no valid PEM private key in " + file + ": " + e.getMessage());
        }
    }

    /**
     * Like Go's {@code tls.LoadX509KeyPair}: the leaf certificate must hold the key's public half.
     *
     * @throws PemException if it does not
     */
    public static void checkPair(X509Certificate leaf, PrivateKey key, Path certFile, Path keyFile)
            throws PemException {
        if (!KeyPairs.matches(leaf.getPublicKey(), key)) {
            throw new PemException("tls: private key in " + keyFile + " does not match public key in " + certFile);
        }
    }

    private static byte[] read(Path file) throws PemException {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new PemException("open " + file + ": no such file or directory");
        } catch (AccessDeniedException e) {
            throw new PemException("open " + file + ": permission denied");
        } catch (IOException e) {
            throw new PemException("open " + file + ": " + e.getMessage());
        }
    }
}
