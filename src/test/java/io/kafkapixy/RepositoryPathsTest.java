package io.kafkapixy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A clone works on every file system: no two paths of the repository differ only in case, which a case-insensitive
 * file system (macOS, Windows) cannot hold apart. The paths are git's tracked files when this is a git work tree,
 * else every file under the root but build output (run from the repository root).
 */
class RepositoryPathsTest {

    private static final Set<String> NOT_SOURCES = Set.of(".git", "target", "node_modules", ".idea");

    @Test
    void noTwoPathsDifferOnlyInCase() throws Exception {
        assertEquals(List.of(), clashes(paths()));
    }

    @Test
    void pathsThatDifferOnlyInCaseAreFoundAtAnyDepth() {
        List<String> paths = List.of("src/a/HandoverTest.java", "src/a/HandOverTest.java", "src/b/Same.java",
                "Docs/x.md", "docs/y.md");

        assertEquals(List.of(Set.of("Docs", "docs"), Set.of("src/a/HandOverTest.java", "src/a/HandoverTest.java")),
                clashes(paths));
    }

    /** Each group of paths (files or directories) that are one path on a case-insensitive file system. */
    static List<Set<String>> clashes(Collection<String> files) {
        Set<String> all = new TreeSet<>();
        for (String f : files) {
            for (int i = f.indexOf('/'); i >= 0; i = f.indexOf('/', i + 1)) {
                all.add(f.substring(0, i));
            }
            all.add(f);
        }
        Map<String, Set<String>> byFolded = new TreeMap<>();
        for (String p : all) {
            byFolded.computeIfAbsent(p.toLowerCase(Locale.ROOT), k -> new TreeSet<>()).add(p);
        }
        List<Set<String>> clashes = new ArrayList<>();
        for (Set<String> same : byFolded.values()) {
            if (same.size() > 1) {
                clashes.add(same);
            }
        }
        return clashes;
    }

    private static List<String> paths() throws Exception {
        if (Files.isDirectory(Path.of(".git"))) {
            try {
                Process git = new ProcessBuilder("git", "ls-files", "-z").start();
                String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (git.waitFor(60, TimeUnit.SECONDS) && git.exitValue() == 0) {
                    return Stream.of(out.split("\0")).filter(s -> !s.isEmpty()).toList();
                }
            } catch (IOException noGit) {
                // no git here: every file in the tree instead
            }
        }
        try (Stream<Path> walk = Files.walk(Path.of("."))) {
            return walk.filter(Files::isRegularFile).map(p -> Path.of(".").relativize(p))
                    .filter(p -> !NOT_SOURCES.contains(p.getName(0).toString()))
                    .map(p -> p.toString().replace('\\', '/')).toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
