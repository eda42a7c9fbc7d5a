package io.kafkapixy.testing;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates made in the test, written as PEM files the way OpenSSL and Go write them: a CA, server certificates
 * for 127.0.0.1 and localhost, client certificates (valid or expired), private keys as PKCS#8, PKCS#1 (RSA) or SEC1
 * (EC).
 */
public final class TestCerts {

    /** How a private key file is written. */
    public enum KeyFormat {
        /** {@code BEGIN PRIVATE KEY}, EC key */
        PKCS8_EC,
        /** {@code BEGIN EC PRIVATE KEY}, what {@code openssl ecparam -genkey} writes */
        SEC1_EC,
        /** {@code BEGIN RSA PRIVATE KEY}, what {@code openssl genrsa} (1.x) writes */
        PKCS1_RSA
    }

    /** A certificate and its key, in memory and as PEM files. */
    public record Issued(X509Certificate certificate, PrivateKey key, Path certFile, Path keyFile) {
    }

    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    private final Path dir;

    public TestCerts(Path dir) {
        this.dir = dir;
    }

    /** A self-signed CA valid from an hour ago for a day. */
    public Issued ca(String name) {
        return issue(name, null, true, false, KeyFormat.PKCS8_EC, Instant.now().minus(Duration.ofHours(1)),
                Instant.now().plus(Duration.ofDays(1)));
    }

    /** A server certificate for 127.0.0.1 and localhost. */
    public Issued server(Issued ca, String name) {
        return issue(name, ca, false, true, KeyFormat.PKCS8_EC, Instant.now().minus(Duration.ofHours(1)),
                Instant.now().plus(Duration.ofDays(1)));
    }

    /** A server certificate with its key in this format. */
    public Issued server(Issued ca, String name, KeyFormat format) {
        return issue(name, ca, false, true, format, Instant.now().minus(Duration.ofHours(1)),
                Instant.now().plus(Duration.ofDays(1)));
    }

    /** A client certificate valid now. */
    public Issued client(Issued ca, String name, KeyFormat format) {
        return issue(name, ca, false, false, format, Instant.now().minus(Duration.ofHours(1)),
                Instant.now().plus(Duration.ofDays(1)));
    }

    /** A client certificate that expired yesterday. */
    public Issued expiredClient(Issued ca, String name) {
        return issue(name, ca, false, false, KeyFormat.PKCS8_EC, Instant.now().minus(Duration.ofDays(3)),
                Instant.now().minus(Duration.ofDays(1)));
    }

    private Issued issue(String name, Issued issuer, boolean ca, boolean server, KeyFormat format, Instant from,
                         Instant to) {
        try {
            KeyPair pair = keyPair(format);
            X500Name subject = new X500Name("CN=" + name);
            X500Name issuerName = issuer == null ? subject
                    : X500Name.getInstance(issuer.certificate().getSubjectX500Principal().getEncoded());
            PrivateKey signingKey = issuer == null ? pair.getPrivate() : issuer.key();
            JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuerName,
                    BigInteger.valueOf(SERIAL.incrementAndGet()), Date.from(from), Date.from(to), subject,
                    pair.getPublic());
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
            if (ca) {
                b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            } else {
                b.addExtension(Extension.keyUsage, true,
                        new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            }
            if (server) {
                b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                        new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                        new GeneralName(GeneralName.dNSName, "localhost")}));
            }
            String algorithm = signingKey.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
            X509Certificate cert = new JcaX509CertificateConverter()
                    .getCertificate(b.build(new JcaContentSignerBuilder(algorithm).build(signingKey)));
            Path certFile = dir.resolve(name + ".crt");
            Path keyFile = dir.resolve(name + ".key");
            Files.writeString(certFile, pem(cert));
            Files.writeString(keyFile, switch (format) {
                case PKCS8_EC -> pem(new JcaPKCS8Generator(pair.getPrivate(), null).generate());
                case SEC1_EC -> pem(sec1(pair));
                case PKCS1_RSA -> pem(pair.getPrivate());
            });
            return new Issued(cert, pair.getPrivate(), certFile, keyFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** SEC1 as OpenSSL writes it: the curve's OID and the public key inside. */
    private static PemObject sec1(KeyPair pair) throws IOException {
        var ec = (java.security.interfaces.ECPrivateKey) pair.getPrivate();
        var curve = PrivateKeyInfo.getInstance(ec.getEncoded()).getPrivateKeyAlgorithm().getParameters();
        var publicKey = SubjectPublicKeyInfo.getInstance(pair.getPublic().getEncoded()).getPublicKeyData();
        var sec1 = new org.bouncycastle.asn1.sec.ECPrivateKey(ec.getParams().getOrder().bitLength(), ec.getS(),
                publicKey, curve);
        return new PemObject("EC PRIVATE KEY", sec1.getEncoded());
    }

    private static KeyPair keyPair(KeyFormat format) throws GeneralSecurityException {
        if (format == KeyFormat.PKCS1_RSA) {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048);
            return g.generateKeyPair();
        }
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    /** PEM text of a certificate, a key (OpenSSL's traditional format) or a PKCS#8 object. */
    public static String pem(Object o) throws IOException {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
            w.writeObject(o);
        }
        return out.toString();
    }
}
