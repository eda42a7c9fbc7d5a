package io.kafkapixy.security;

/**
 * Who one connection's last bearer token was, so that a connection presenting the same token call after call (what
 * clients do) is not digested and looked up again each time. Only a token is remembered (a JWT may expire
 * meanwhile), and only while the credentials it was found in are the current ones: a reload of the clients file
 * forgets it. A presented token is compared with the remembered one in full and in time independent of where they
 * differ, since a front end may carry several clients' calls over one connection; a different token is looked up.
 * Kept as long as the connection, as the connection's own header table keeps the header.
 */
public final class ConnectionIdentity {

    private volatile Remembered last;

    private record Remembered(String authorization, ClientsFile file, NamedClient client) { }

    /** The client {@code authorization} was last time, if it was a token of these credentials; else null. */
    NamedClient recall(String authorization, ClientsFile file) {
        Remembered r = last;
        return r != null && r.file == file && sameText(r.authorization, authorization) ? r.client : null;
    }

    void remember(String authorization, ClientsFile file, NamedClient client) {
        last = new Remembered(authorization, file, client);
    }

    private static boolean sameText(String a, String b) {
        if (a.length() != b.length()) {
            return false;
        }
        int differences = 0;
        for (int i = 0; i < a.length(); i++) {
            differences |= a.charAt(i) ^ b.charAt(i);
        }
        return differences == 0;
    }
}
