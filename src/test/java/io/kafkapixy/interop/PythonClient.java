package io.kafkapixy.interop;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Python's {@code grpcio} (gRPC C-core) with stubs from {@code grpc_tools.protoc}, Debian's or pip's. */
final class PythonClient implements InteropClient {

    /** Debian's interpreter first: on a machine with pyenv, {@code python3} on the PATH may lack Debian's grpcio. */
    private static final List<String> INTERPRETERS = List.of("/usr/bin/python3", "python3");

    private String python;

    @Override
    public String name() {
        return "python";
    }

    /** The interpreter that has grpcio and grpc_tools; set by {@link #prepare}. */
    String python() {
        return python;
    }

    @Override
    public String install() {
        return "apt-get install python3-grpcio python3-grpc-tools";
    }

    @Override
    public Optional<String> prepare(Path work) throws Exception {
        for (String candidate : INTERPRETERS) {
            if (Commands.works(work, List.of(candidate, "-c", "import grpc, grpc_tools.protoc"))) {
                python = candidate;
                break;
            }
        }
        if (python == null) {
            return Optional.of("no python3 with grpcio and grpc_tools");
        }
        Commands.Result r = Commands.run(work, Map.of(), Duration.ofSeconds(60), List.of(python, "-m",
                "grpc_tools.protoc", "-I", PROTO_DIR.toAbsolutePath().toString(), "--python_out=.",
                "--grpc_python_out=.", "kafkapixy.proto", "kafkapixy_stream.proto"));
        if (!r.ok()) {
            throw new AssertionError("grpc_tools.protoc failed: " + r.describe());
        }
        return Optional.empty();
    }

    @Override
    public Map<String, String> env(Path work) {
        return Map.of("PYTHONPATH", work.toAbsolutePath().toString());
    }

    @Override
    public List<String> command(Path work, String target, String topic, String group, Optional<Path> ca) {
        List<String> command = new ArrayList<>(List.of(python,
                SOURCES.resolve("python/interop.py").toAbsolutePath().toString(), target, topic, group));
        ca.ifPresent(c -> command.add(c.toString()));
        return command;
    }
}
