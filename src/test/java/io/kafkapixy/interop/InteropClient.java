package io.kafkapixy.interop;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A gRPC client stack that runs the interop scenario ({@code src/test/interop/README.md}) against a running proxy:
 * its program is in {@code src/test/interop/<name>}, its stubs are generated from {@code kafkapixy.proto} by its own
 * toolchain, as its users generate them.
 */
interface InteropClient {

    /** Where the clients' programs and the proto are, relative to the project (Failsafe's working directory). */
    Path SOURCES = Path.of("src/test/interop");
    Path PROTO_DIR = Path.of("src/main/proto");

    String name();

    /**
     * Generates the stubs (and builds, where the stack compiles) in {@code work}.
     *
     * @return empty when ready; otherwise what this machine lacks to run the client
     */
    Optional<String> prepare(Path work) throws Exception;

    /** The install that would let {@link #prepare} succeed on a Debian or Ubuntu machine. */
    String install();

    /** Environment variables the command needs, e.g. where the generated stubs are. */
    default java.util.Map<String, String> env(Path work) {
        return java.util.Map.of();
    }

    /**
     * The command that runs the scenario.
     *
     * @param ca the CA that signed the server's certificate, for TLS; empty for plaintext
     */
    List<String> command(Path work, String target, String topic, String group, Optional<Path> ca);
}
