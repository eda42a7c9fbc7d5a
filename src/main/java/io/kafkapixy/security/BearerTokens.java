package io.kafkapixy.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The bearer tokens clients must present ({@code Authorization: Bearer <token>} on REST, the same {@code authorization}
 * metadata on gRPC). A presented token is compared with every configured one through their SHA-256 digests with
 * {@link MessageDigest#isEqual}, so neither a token's content nor its length shows in the time taken.
 */
public final class BearerTokens {

    private static final String SCHEME = "bearer ";

    private final List<TokenDigest> digests;

    private BearerTokens(List<TokenDigest> digests) {
        this.digests = List.copyOf(digests);
    }

    /**
     * @param file one token per line, blank lines and {@code #} comments skipped; empty for none
     * @param envName an environment variable holding tokens separated by commas or white space; empty for none
     * @param env     the environment ({@code System::getenv})
     * @throws IllegalArgumentException the file cannot be read, the variable is unset, or no token was found: a
     *                                  typo must not leave the APIs open
     */
    public static BearerTokens load(String file, String envName, UnaryOperator<String> env) {
        List<String> tokens = new ArrayList<>();
        if (!file.isEmpty()) {
            try {
                for (String line : Files.readAllLines(Path.of(file), StandardCharsets.UTF_8)) {
                    String t = line.strip();
                    if (!t.isEmpty() && !t.startsWith("#")) {
                        tokens.add(t);
                    }
                }
            } catch (IOException e) {
                throw new IllegalArgumentException("auth.bearer_tokens_file: cannot read " + file + ": "
                                                   + e.getClass().getSimpleName());
            }
        }
        if (!envName.isEmpty()) {
            String value = env.apply(envName);
            if (value == null) {
                throw new IllegalArgumentException("auth.bearer_tokens_env: environment variable " + envName
                                                   + " is not set");
            }
            for (String t : value.split("[,\\s]+")) {
                if (!t.isEmpty()) {
                    tokens.add(t);
                }
            }
        }
        if (tokens.isEmpty()) {
            throw new IllegalArgumentException("auth: no bearer token found in "
                                               + (file.isEmpty() ? "" : "auth.bearer_tokens_file")
                                               + (file.isEmpty() || envName.isEmpty() ? "" : " or ")
                                               + (envName.isEmpty() ? "" : "auth.bearer_tokens_env"));
        }
        return new BearerTokens(tokens.stream().map(TokenDigest::of).toList());
    }

    /**
     * @param authorization the request's {@code Authorization} value, null when absent
     * @return whether it is {@code Bearer <one of the tokens>} (the scheme case-insensitive, as RFC 6750 has it)
     */
    public boolean accepts(String authorization) {
        if (authorization == null || authorization.length() <= SCHEME.length()
            || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return false;
        }
        TokenDigest presented = TokenDigest.of(authorization.substring(SCHEME.length()).strip());
        boolean match = false;
        for (TokenDigest d : digests) {
            match |= d.equals(presented);
        }
        return match;
    }

    public int size() {
        return digests.size();
    }
}
