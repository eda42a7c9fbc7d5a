package io.kafkapixy;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The documentation stays true to the code and to itself. Run from the repository root (Maven's basedir).
 *
 * <ul>
 *   <li><b>The package map.</b> Every package directory under {@code src/main/java/io/kafkapixy} that holds at least
 *       one {@code .java} file (the root package aside) appears in {@code docs/architecture.md} as its path relative
 *       to {@code src/main/java/io/kafkapixy}, with {@code /} as separator, followed by {@code /}, and standing alone:
 *       not preceded by a letter, digit, {@code /}, {@code .} or {@code -}, and not followed by one (so
 *       {@code server/http/} names {@code server/http} but not {@code server}; {@code consumer/} names
 *       {@code consumer}).</li>
 *   <li><b>The README's length.</b> {@code README.md} has at most {@value #README_MAX_LINES} lines: details go to
 *       {@code docs/}.</li>
 *   <li><b>Links.</b> Every relative Markdown link in {@code README.md} and {@code docs/*.md}, inline
 *       ({@code [text](target)}) or reference-style ({@code [label]: target}), outside fenced code blocks and code
 *       spans, names a file or directory that exists, resolved from the linking file's directory. Links with a
 *       scheme ({@code https:}, {@code mailto:}, ...) and pure {@code #anchors} are not checked; an anchor after a
 *       path is ignored, the path is checked.</li>
 * </ul>
 */
class DocsTest {

    static final int README_MAX_LINES = 500;

    private static final Path MAIN_ROOT = Path.of("src", "main", "java", "io", "kafkapixy");
    private static final Path ARCHITECTURE = Path.of("docs", "architecture.md");
    private static final Path README = Path.of("README.md");
    private static final Path DOCS = Path.of("docs");

    /** {@code [text](target)} or {@code [text](target "title")}; the text has no brackets once code spans are gone. */
    private static final Pattern INLINE_LINK = Pattern.compile("\\[[^\\[\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    /** {@code [label]: target} at the start of a line. */
    private static final Pattern REFERENCE_LINK = Pattern.compile("(?m)^ {0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s+.*)?$");
    /** A URI scheme such as {@code https:} or {@code mailto:}. */
    private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");
    /** A code span: backticks and what they enclose (may run over a line end). */
    private static final Pattern CODE_SPAN = Pattern.compile("`+[^`]*`+");

    @Test
    void everyPackageIsInTheArchitectureMap() throws IOException {
        assertTrue(Files.isDirectory(MAIN_ROOT), "run from the repository root: no " + MAIN_ROOT);
        String map = Files.readString(ARCHITECTURE);
        List<String> packages = packageDirectories();
        assertFalse(packages.isEmpty(), "no package directories found under " + MAIN_ROOT);
        List<String> missing = new ArrayList<>();
        for (String pkg : packages) {
            Pattern entry = Pattern.compile("(?<![A-Za-z0-9_/.-])" + Pattern.quote(pkg + "/") + "(?![A-Za-z0-9_.-])");
            if (!entry.matcher(map).find()) {
                missing.add(pkg + "/");
            }
        }
        assertTrue(missing.isEmpty(), ARCHITECTURE + " does not name these packages of " + MAIN_ROOT
                + " (write each as its relative path followed by '/'): " + missing);
    }

    @Test
    void readmeIsShort() throws IOException {
        int lines = Files.readAllLines(README).size();
        assertTrue(lines <= README_MAX_LINES, README + " has " + lines + " lines, more than " + README_MAX_LINES
                + ": move details to docs/ and link them");
    }

    @Test
    void relativeLinksNameExistingFiles() throws IOException {
        List<Path> documents = new ArrayList<>();
        documents.add(README);
        try (Stream<Path> files = Files.list(DOCS)) {
            files.filter(p -> p.getFileName().toString().endsWith(".md") && Files.isRegularFile(p))
                    .sorted()
                    .forEach(documents::add);
        }
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path document : documents) {
            Path base = document.toAbsolutePath().getParent();
            for (String target : relativeLinkTargets(Files.readString(document))) {
                checked++;
                int hash = target.indexOf('#');
                String path = hash < 0 ? target : target.substring(0, hash);
                int query = path.indexOf('?');
                if (query >= 0) {
                    path = path.substring(0, query);
                }
                if (path.isEmpty()) {
                    continue;
                }
                if (!Files.exists(base.resolve(path).normalize())) {
                    broken.add(document + ": " + target);
                }
            }
        }
        assertTrue(checked > 0, "no relative links found in " + documents);
        assertTrue(broken.isEmpty(), "links to files that do not exist: " + broken);
    }

    /** The package directories holding {@code .java} files, relative to {@link #MAIN_ROOT}, with '/' separators. */
    private static List<String> packageDirectories() throws IOException {
        List<String> packages = new ArrayList<>();
        try (Stream<Path> dirs = Files.walk(MAIN_ROOT)) {
            for (Path dir : dirs.filter(Files::isDirectory).sorted().toList()) {
                String relative = MAIN_ROOT.relativize(dir).toString().replace(File.separatorChar, '/');
                if (!relative.isEmpty() && holdsJava(dir)) {
                    packages.add(relative);
                }
            }
        }
        return packages;
    }

    private static boolean holdsJava(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.anyMatch(p -> Files.isRegularFile(p) && p.getFileName().toString().endsWith(".java"));
        }
    }

    /** The targets of a document's links that are neither absolute URIs nor pure anchors. */
    static List<String> relativeLinkTargets(String markdown) {
        String prose = CODE_SPAN.matcher(withoutFencedBlocks(markdown)).replaceAll("code");
        List<String> targets = new ArrayList<>();
        for (Pattern link : List.of(INLINE_LINK, REFERENCE_LINK)) {
            Matcher m = link.matcher(prose);
            while (m.find()) {
                String target = m.group(1);
                if (!target.startsWith("#") && !SCHEME.matcher(target).find()) {
                    targets.add(target);
                }
            }
        }
        return targets;
    }

    /** The document without its fenced code blocks ({@code ```} or {@code ~~~} lines and what is between them). */
    private static String withoutFencedBlocks(String markdown) {
        StringBuilder out = new StringBuilder(markdown.length());
        String fence = null;
        for (String line : markdown.split("\n", -1)) {
            String trimmed = line.strip();
            if (fence == null) {
                if (trimmed.startsWith("```") || trimmed.startsWith("~~~")) {
                    fence = trimmed.substring(0, 3);
                    continue;
                }
                out.append(line).append('\n');
            } else if (trimmed.startsWith(fence)) {
                fence = null;
            }
        }
        return out.toString();
    }
}
