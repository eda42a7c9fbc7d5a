package io.kafkapixy.interop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.junit.jupiter.api.Assumptions;

/**
 * A suite that needs a tool the machine does not have: skipped, and named on one line of
 * {@code target/interop/skipped.txt} with what is missing and the install that would run it ({@code ./test.sh}
 * prints the file at the end). With {@code -Dinterop.required=true} (CI) it fails instead.
 */
final class Skips {

    static final boolean REQUIRED = Boolean.getBoolean("interop.required");
    static final Path FILE = Path.of("target", "interop", "skipped.txt");
    /** What a tool's own error says past this is left out of the one line (npm's errors run to pages). */
    private static final int MAX_WHY = 160;

    private Skips() {
    }

    /** Skips (or, when required, fails) the running test: {@code suite} cannot run because {@code why}. */
    static void skip(String suite, String why, String install) {
        String line = suite + ": " + oneLine(why) + "; install: " + install;
        if (REQUIRED) {
            throw new AssertionError(line);
        }
        try {
            Files.createDirectories(FILE.getParent());
            Files.writeString(FILE, line + System.lineSeparator(), StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Assumptions.abort(line);
    }

    /** {@code text}'s first line that says something, at most {@value #MAX_WHY} characters. */
    static String oneLine(String text) {
        String first = text.lines().map(String::strip).filter(l -> !l.isEmpty()).findFirst().orElse("");
        String more = text.strip().equals(first) ? "" : " ...";
        return first.length() > MAX_WHY ? first.substring(0, MAX_WHY) + " ..." : first + more;
    }
}
