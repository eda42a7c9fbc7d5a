package io.kafkapixy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Rules the main code keeps (run from the repository root). Only the launcher (its config errors, before logging is
 * set up) and the logging set-up (the sinks themselves) write to {@code System.out} or {@code System.err}: everything
 * else logs through {@code System.Logger}, so that what it says goes through the configured sinks, at its severity,
 * and a probe left in by mistake fails here. No class is over {@value #MAX_LINES} lines.
 */
class SourceRulesTest {

    static final int MAX_LINES = 400;
    private static final Path MAIN = Path.of("src", "main", "java");
    private static final Set<String> WRITE_TO_CONSOLE = Set.of("io/kafkapixy/Launcher.java",
            "io/kafkapixy/logging/LogSetup.java");

    @Test
    void onlyTheLauncherAndTheLoggingSetUpWriteToTheConsole() throws IOException {
        List<String> writers = sources().filter(p -> !WRITE_TO_CONSOLE.contains(relative(p)))
                .filter(p -> read(p).contains("System.out") || read(p).contains("System.err"))
                .map(SourceRulesTest::relative).toList();
        assertEquals(List.of(), writers);
    }

    @Test
    void noClassIsOverFourHundredLines() throws IOException {
        List<String> tooLong = sources().filter(p -> read(p).lines().count() > MAX_LINES)
                .map(SourceRulesTest::relative).toList();
        assertEquals(List.of(), tooLong);
    }

    private static Stream<Path> sources() throws IOException {
        return Files.walk(MAIN).filter(p -> p.toString().endsWith(".java")).sorted();
    }

    private static String relative(Path p) {
        return MAIN.relativize(p).toString().replace('\\', '/');
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
