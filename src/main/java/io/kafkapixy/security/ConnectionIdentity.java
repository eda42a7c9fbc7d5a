package io.kafkapixy.security;

import java.time.Clock;
import java.time.Instant;

/**
 * Who one connection's last bearer token or JWT was, so that a connection presenting the same one call after call
 * (what clients do) is not digested and looked up, or its signature checked, again each time. It is remembered only
 * while the clients file it was found in is the current one (a reload forgets it), and a JWT also only until it
 * expires and for {@link Identities#JWT_RECALL} at most (so a key taken out of the JWKS stops it within that time).
 * A presented token is compared with the remembered one in full and in time independent of where they differ, since
 * a front end may carry several clients' calls over one connection; a different token is looked up.
 * Kept as long as the connection, as the connection's own header table keeps the header.
 */
public final class ConnectionIdentity {

    private volatile Remembered last;

    private static final Object NO_FILE = new Object();

    /**
     * @param file  the clients file's {@link ClientsFile#generation} it was found in, not the file, which a connection
     *              left idle across reloads would keep in the heap
     * @param until null: as long as that file is the current one
     */
    private record Remembered(String authorization, Object file, NamedClient client, Instant until) { }

    /** The client {@code authorization} was last time, if found in these credentials and still remembered, or null. */
    NamedClient recall(String authorization, ClientsFile file, Clock clock) {
        Remembered r = last;
        return r != null && r.file == generation(file) && sameText(r.authorization, authorization)
               && (r.until == null || clock.instant().isBefore(r.until)) ? r.client : null;
    }

    /** @param until when to forget it; null: not before {@code file} is replaced */
    void remember(String authorization, ClientsFile file, NamedClient client, Instant until) {
        last = new Remembered(authorization, generation(file), client, until);
    }

    private static Object generation(ClientsFile file) {
        return file == null ? NO_FILE : file.generation;
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
