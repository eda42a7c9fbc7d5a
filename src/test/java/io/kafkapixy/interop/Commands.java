package io.kafkapixy.interop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs another toolchain's command, its output kept in files so a full pipe never blocks it. */
final class Commands {

    /** How a command ended: its exit code ({@code -1} when killed at its timeout) and what it printed. */
    record Result(int exit, String out, String err) {
        boolean ok() {
            return exit == 0;
        }

        String describe() {
            return "exit " + exit + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    private Commands() {
    }

    static Result run(Path dir, Map<String, String> env, Duration timeout, List<String> command)
            throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().putAll(env);
        Process p;
        try {
            p = builder.start();
        } catch (IOException notInstalled) {
            return new Result(127, "", String.valueOf(notInstalled.getMessage()));
        }
        int exit;
        if (p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            exit = p.exitValue();
        } else {
            p.descendants().forEach(ProcessHandle::destroyForcibly); // go build's compilers, npm's children
            p.destroyForcibly().waitFor();
            exit = -1;
        }
        Result r = new Result(exit, Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        Files.delete(out);
        Files.delete(err);
        return r;
    }

    /** Whether this command runs and exits 0 within 30 s. */
    static boolean works(Path dir, List<String> command) throws IOException, InterruptedException {
        return run(dir, Map.of(), Duration.ofSeconds(30), command).ok();
    }
}
