package io.kafkapixy.interop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Code from the README and the docs, run as a newcomer copies it, so the documents cannot drift from what works. */
final class ReadmeSnippet {

    private ReadmeSnippet() {
    }

    /** The README's first {@code ```python} block: the gRPC quick start. */
    static String python() {
        return pythonBlock(0);
    }

    /** The {@code ```python} block of the streaming service in {@code docs/streaming.md}: producer and consumer. */
    static String pythonStreams() {
        return block(Path.of("docs/streaming.md"), "python", 0);
    }

    /** The {@code ```java} block of the streaming service, in {@code docs/streaming.md}: {@code StreamClient.java}. */
    static String javaStreams() {
        return block(Path.of("docs/streaming.md"), "java", 0);
    }

    /** The {@code index}-th {@code ```python} block of the README. */
    private static String pythonBlock(int index) {
        return block(Path.of("README.md"), "python", index);
    }

    /** The {@code index}-th block of {@code language} in a Markdown document. */
    private static String block(Path document, String language, int index) {
        String readme;
        try {
            readme = Files.readString(document);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String fence = "```" + language + "\n";
        int start = -1;
        for (int i = 0; i <= index; i++) {
            start = readme.indexOf(fence, start + 1);
            if (start < 0) {
                throw new AssertionError(document + " has no ```" + language + " block number " + (index + 1));
            }
        }
        start += fence.length();
        return readme.substring(start, readme.indexOf("```", start));
    }
}
