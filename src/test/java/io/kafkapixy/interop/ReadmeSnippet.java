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
        return pythonBlock(0);
    }

    /** The README's {@code ```python} block of the streaming service: a producer and a consumer loop. */
    static String pythonStreams() {
        for (int i = 0; ; i++) {
            String block = pythonBlock(i);
            if (block.contains("kafkapixy_stream_pb2")) {
                return block;
            }
        }
    }

    /** The README's {@code ```java} block of the streaming service: {@code StreamClient.java}. */
    static String javaStreams() {
        return block("java", 0);
    }

    /** The {@code index}-th {@code ```python} block of the README. */
    private static String pythonBlock(int index) {
        return block("python", index);
    }

    /** The {@code index}-th block of {@code language} in the README. */
    private static String block(String language, int index) {
        String readme;
        try {
            readme = Files.readString(Path.of("README.md"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String fence = "```" + language + "\n";
        int start = -1;
        for (int i = 0; i <= index; i++) {
            start = readme.indexOf(fence, start + 1);
            if (start < 0) {
                throw new AssertionError("the README has no ```" + language + " block number " + (index + 1));
            }
        }
        start += fence.length();
        return readme.substring(start, readme.indexOf("```", start));
    }
}
