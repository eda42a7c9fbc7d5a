package io.kafkapixy.server;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.kafkapixy.config.AuthConfig;
import io.kafkapixy.security.BearerTokens;
import io.kafkapixy.security.ClientsFile;
import io.kafkapixy.security.Identities;
import io.kafkapixy.security.JwtCheck;
import io.kafkapixy.security.ReloadedFile;

/**
 * The credentials {@code auth} configures, as {@link Identities}; the clients file and the JWKS file are read again
 * every {@link #REREAD} by a thread of their own, so a change applies within seconds without a restart (and a file
 * that breaks keeps the last good one).
 */
final class AuthFiles implements AutoCloseable {

    static final long REREAD = 2;
    private static final System.Logger LOG = System.getLogger(AuthFiles.class.getName());

    private final Identities identities;
    private final ScheduledExecutorService rereads;

    private AuthFiles(Identities identities, ScheduledExecutorService rereads) {
        this.identities = identities;
        this.rereads = rereads;
    }

    /** @throws IllegalArgumentException a file that cannot be read or used, an unset token variable */
    static AuthFiles load(AuthConfig auth) {
        Optional<BearerTokens> tokens = auth.tokens()
                ? Optional.of(BearerTokens.load(auth.bearerTokensFile(), auth.bearerTokensEnv(), System::getenv))
                : Optional.empty();
        List<ReloadedFile<?>> files = new ArrayList<>();
        Optional<ReloadedFile<ClientsFile>> clients = Optional.empty();
        if (!auth.clientsFile().isEmpty()) {
            clients = Optional.of(new ReloadedFile<>(Path.of(auth.clientsFile()), ClientsFile::parse,
                    "auth.clients_file"));
            files.add(clients.get());
        }
        Optional<JwtCheck> jwt = Optional.empty();
        if (!auth.jwksPath().isEmpty()) {
            ReloadedFile<com.nimbusds.jose.jwk.JWKSet> jwks = new ReloadedFile<>(Path.of(auth.jwksPath()),
                    JwtCheck::parseJwks, "auth.jwt.jwks_path");
            files.add(jwks);
            jwt = Optional.of(new JwtCheck(JwtCheck.keysIn(jwks), auth.issuer(), auth.audience(), Clock.systemUTC()));
        } else if (!auth.jwksUrl().isEmpty()) {
            jwt = Optional.of(new JwtCheck(JwtCheck.keysAt(JwtCheck.jwksUrl(auth.jwksUrl())), auth.issuer(),
                    auth.audience(), Clock.systemUTC()));
        }
        ScheduledExecutorService rereads = null;
        if (!files.isEmpty()) {
            rereads = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("auth-files")
                    .factory());
            rereads.scheduleWithFixedDelay(() -> files.forEach(AuthFiles::refresh), REREAD, REREAD,
                    TimeUnit.SECONDS);
        }
        Optional<ReloadedFile<ClientsFile>> named = clients;
        return new AuthFiles(new Identities(tokens, () -> named.map(ReloadedFile::current), jwt), rereads);
    }

    /**
     * A failure that escapes one reread (reading a file too large for the heap, say) must not end them: a scheduled
     * task that throws is never run again.
     */
    private static void refresh(ReloadedFile<?> file) {
        try {
            file.refresh();
        } catch (RuntimeException | OutOfMemoryError e) {
            LOG.log(System.Logger.Level.ERROR, "reading a credentials file again failed; the last good one stays "
                                               + "in use", e);
        }
    }

    Identities identities() {
        return identities;
    }

    @Override
    public void close() {
        if (rereads != null) {
            rereads.shutdownNow();
        }
    }
}
