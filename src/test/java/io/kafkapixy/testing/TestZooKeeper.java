package io.kafkapixy.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * A real ZooKeeper server in this JVM (Curator's {@link TestingServer}) that leaves nothing behind: its data and the
 * configuration file the embedded server writes beside its data directory both live in a directory of its own,
 * deleted when it closes. (Curator's default data directory is directly in the system temp directory, so each server
 * left a {@code zookeeper.configuration<N>.properties} there.)
 */
public final class TestZooKeeper extends TestingServer {

    private final Path root;

    private TestZooKeeper(Path root, InstanceSpec spec) throws Exception {
        super(spec, true);
        this.root = root;
    }

    /** Started on a free port, with ZooKeeper's default tick. */
    public static TestZooKeeper running() throws Exception {
        return running(-1, -1);
    }

    /** Started on {@code port} (-1: a free one) with a tick of {@code tickTimeMs} (-1: ZooKeeper's default). */
    public static TestZooKeeper running(int port, int tickTimeMs) throws Exception {
        Path root = Files.createTempDirectory("test-zookeeper");
        try {
            return new TestZooKeeper(root, new InstanceSpec(root.resolve("data").toFile(), port, -1, -1, true, -1,
                    tickTimeMs, -1));
        } catch (Exception e) {
            delete(root);
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            super.close();
        } finally {
            delete(root);
        }
    }

    private static void delete(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
