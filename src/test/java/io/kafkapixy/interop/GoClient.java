package io.kafkapixy.interop;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * grpc-go, built in GOPATH mode from Debian's packages ({@code golang-google-grpc-dev} and friends under
 * {@code /usr/share/gocode}): no module proxy is needed. Stubs from {@code protoc-gen-go} and
 * {@code protoc-gen-go-grpc}.
 */
final class GoClient implements InteropClient {

    private static final Path DEBIAN_GOPATH = Path.of("/usr/share/gocode");

    @Override
    public String name() {
        return "go";
    }

    @Override
    public String install() {
        return "apt-get install golang-go golang-google-grpc-dev golang-google-protobuf-dev "
                + "golang-github-golang-protobuf-1-5-dev protoc-gen-go protoc-gen-go-grpc";
    }

    @Override
    public Optional<String> prepare(Path work) throws Exception {
        if (!Commands.works(work, List.of("go", "version"))
            || !Commands.works(work, List.of("sh", "-c",
                    "for c in protoc protoc-gen-go protoc-gen-go-grpc; do command -v \"$c\" || exit 1; done"))
            || !Files.isDirectory(DEBIAN_GOPATH.resolve("src/google.golang.org/grpc"))) {
            return Optional.of("no go toolchain with Debian's grpc-go sources");
        }
        Path pkg = work.resolve("src/interop");
        Files.createDirectories(pkg.resolve("pb"));
        Files.copy(SOURCES.resolve("go/main.go"), pkg.resolve("main.go"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Commands.Result r = Commands.run(work, Map.of(), Duration.ofSeconds(60), List.of("protoc",
                "-I", PROTO_DIR.toAbsolutePath().toString(),
                "--go_out=src/interop/pb", "--go_opt=paths=source_relative", "--go_opt=Mkafkapixy.proto=interop/pb",
                "--go-grpc_out=src/interop/pb", "--go-grpc_opt=paths=source_relative",
                "--go-grpc_opt=Mkafkapixy.proto=interop/pb", "kafkapixy.proto"));
        if (!r.ok()) {
            throw new AssertionError("protoc for Go failed: " + r.describe());
        }
        r = Commands.run(work, env(work), Duration.ofMinutes(4), List.of("go", "build", "-o", "interop", "interop"));
        if (!r.ok()) {
            throw new AssertionError("go build failed: " + r.describe());
        }
        return Optional.empty();
    }

    /** GOPATH mode: the stubs and the program under {@code work}, their dependencies from Debian. */
    @Override
    public Map<String, String> env(Path work) {
        return Map.of("GOPATH", work.toAbsolutePath() + ":" + DEBIAN_GOPATH, "GO111MODULE", "off",
                "GOCACHE", work.toAbsolutePath().resolve("cache").toString(), "GOFLAGS", "");
    }

    @Override
    public List<String> command(Path work, String target, String topic, String group, Optional<Path> ca) {
        List<String> command = new ArrayList<>(List.of(work.resolve("interop").toAbsolutePath().toString(), target,
                topic, group));
        ca.ifPresent(c -> command.add(c.toString()));
        return command;
    }
}
