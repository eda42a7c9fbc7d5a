package io.kafkapixy.interop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Code from the README, run as a newcomer copies it, so the README cannot drift from what works. */
final class ReadmeSnippet {

    private ReadmeSnippet() {
    }

    /** The README's first {@code ```python} block: the gRPC quick start. */
    static String python() {
        String readme;
        try {
            readme = Files.readString(Path.of("README.md"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int start = readme.indexOf("```python\n");
        if (start < 0) {
            throw new AssertionError("the README has no ```python block");
        }
        start += "```python\n".length();
        return readme.substring(start, readme.indexOf("```", start));
    }
}
