package io.kafkapixy.interop;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Node's {@code @grpc/grpc-js} with {@code @grpc/proto-loader} reading {@code kafkapixy.proto} at run time, installed
 * by {@code npm ci} from the committed lock file.
 */
final class NodeClient implements InteropClient {

    @Override
    public String name() {
        return "node";
    }

    @Override
    public String install() {
        return "Node.js 18+ with npm (NodeSource's nodejs package), and the npm registry reachable";
    }

    @Override
    public Optional<String> prepare(Path work) throws Exception {
        if (!Commands.works(work, List.of("node", "--version")) || !Commands.works(work, List.of("npm", "--version"))) {
            return Optional.of("no node and npm");
        }
        for (String file : List.of("package.json", "package-lock.json", "interop.js")) {
            Files.copy(SOURCES.resolve("node").resolve(file), work.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        Commands.Result r = Commands.run(work, Map.of(), Duration.ofMinutes(3),
                List.of("npm", "ci", "--no-audit", "--no-fund"));
        if (!r.ok()) {
            return Optional.of("npm ci failed (is the npm registry reachable?): " + r.err().strip());
        }
        return Optional.empty();
    }

    @Override
    public List<String> command(Path work, String target, String topic, String group, Optional<Path> ca) {
        if (ca.isPresent()) {
            throw new UnsupportedOperationException("the Node client runs in plaintext only");
        }
        return List.of("node", work.resolve("interop.js").toAbsolutePath().toString(),
                PROTO_DIR.resolve("kafkapixy.proto").toAbsolutePath().toString(), target, topic, group);
    }
}
