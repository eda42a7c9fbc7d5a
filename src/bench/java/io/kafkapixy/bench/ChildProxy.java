package io.kafkapixy.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The packaged proxy jar running as a child process of the benchmark, so its heap, RSS and threads are its own and
 * not mixed with the load generator's. Started by {@link Target}, which stops it; its stdout and stderr go to a log
 * file.
 */
final class ChildProxy implements AutoCloseable {

    /** The proxy's heap in the capacity target ("10,000 parked long polls in a 512 MiB heap"). */
    static final String HEAP = "-Xmx512m";

    private final Process process;
    private final List<String> command;
    private final Path log;

    private ChildProxy(Process process, List<String> command, Path log) {
        this.process = process;
        this.command = List.copyOf(command);
        this.log = log;
    }

    /** Starts {@code jar} with {@code config} and returns once {@code /_ping} answers on {@code restPort}. */
    static ChildProxy start(Path jar, Path config, int restPort, Path log) throws IOException, InterruptedException {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " does not exist: build it with mvn package (./bench.sh does)");
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // the same JDK flags as run.sh gives the proxy (scripts/java-home.sh exports them)
        addFlags(command, System.getenv().getOrDefault("PIXY_JVM_FLAGS", ""));
        command.add(HEAP);
        // the proxy's alone, after the heap so they can override it: to compare collectors or heap sizes under one load
        addFlags(command, System.getenv().getOrDefault("BENCH_PROXY_FLAGS", ""));
        command.addAll(List.of("-jar", jar.toString(), "-config", config.toString()));
        Files.createDirectories(log.toAbsolutePath().getParent());
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
        ChildProxy child = new ChildProxy(p, command, log);
        try {
            child.awaitPing(restPort, Duration.ofSeconds(90));
        } catch (RuntimeException | InterruptedException e) {
            child.close();
            throw e;
        }
        return child;
    }

    private static void addFlags(List<String> command, String flags) {
        Arrays.stream(flags.trim().split("\\s+")).filter(f -> !f.isEmpty()).forEach(command::add);
    }

    long pid() {
        return process.pid();
    }

    String command() {
        return String.join(" ", command);
    }

    private void awaitPing(int restPort, Duration timeout) throws InterruptedException {
        URI ping = URI.create("http://127.0.0.1:" + restPort + "/_ping");
        long deadline = System.nanoTime() + timeout.toNanos();
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).build()) {
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("the proxy exited with " + process.exitValue() + "; its log:\n"
                                                    + tail());
                }
                try {
                    HttpResponse<String> rs = http.send(HttpRequest.newBuilder(ping).timeout(Duration.ofSeconds(2))
                            .build(), HttpResponse.BodyHandlers.ofString());
                    if (rs.statusCode() == 200) {
                        return;
                    }
                } catch (IOException notYet) {
                    // not listening yet
                }
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException("the proxy did not answer /_ping within " + timeout + "; its log:\n" + tail());
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(" + log + " unreadable: " + e + ")";
        }
    }

    /** SIGTERM (the proxy drains), then SIGKILL if it takes too long. Safe to call more than once. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
