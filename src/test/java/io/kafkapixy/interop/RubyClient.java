package io.kafkapixy.interop;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Ruby's {@code grpc} gem (gRPC C-core) with stubs from {@code grpc_tools_ruby_protoc}. */
final class RubyClient implements InteropClient {

    @Override
    public String name() {
        return "ruby";
    }

    @Override
    public String install() {
        return "apt-get install ruby-grpc ruby-grpc-tools";
    }

    @Override
    public Optional<String> prepare(Path work) throws Exception {
        if (!Commands.works(work, List.of("ruby", "-e", "require 'grpc'"))
            || !Commands.works(work, List.of("sh", "-c", "command -v grpc_tools_ruby_protoc"))) {
            return Optional.of("no ruby with the grpc gem and grpc_tools_ruby_protoc");
        }
        Commands.Result r = Commands.run(work, Map.of(), Duration.ofSeconds(60), List.of("grpc_tools_ruby_protoc",
                "-I", PROTO_DIR.toAbsolutePath().toString(), "--ruby_out=.", "--grpc_out=.", "kafkapixy.proto"));
        if (!r.ok()) {
            throw new AssertionError("grpc_tools_ruby_protoc failed: " + r.describe());
        }
        return Optional.empty();
    }

    @Override
    public List<String> command(Path work, String target, String topic, String group, Optional<Path> ca) {
        if (ca.isPresent()) {
            throw new UnsupportedOperationException("the Ruby client runs in plaintext only");
        }
        return List.of("ruby", "-I", work.toAbsolutePath().toString(), SOURCES.resolve("ruby/interop.rb").toAbsolutePath().toString(),
                target, topic, group);
    }
}
