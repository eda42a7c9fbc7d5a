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

import io.kafkapixy.testing.PixyProcess;

/**
 * The packaged proxy jar running as a child process of the benchmark, so its heap, RSS and threads are its own and
 * not mixed with the load generator's. Started as the container image starts it
 * ({@link PixyProcess#productionJvmSettings()}: {@code jvm.options} under the Deployment's memory limit, emulated
 * with {@code -XX:MaxRAM}, as the packaged-jar tests do). Started by {@link Target}, which stops it, and by {@link FootprintScenario}; its stdout and stderr
 * go to a log file.
 */
final class ChildProxy implements AutoCloseable {

    private final Process process;
    private final List<String> command;
    private final Path log;
    private final long launchedNanos;

    private ChildProxy(Process process, List<String> command, Path log, long launchedNanos) {
        this.process = process;
        this.command = List.copyOf(command);
        this.log = log;
        this.launchedNanos = launchedNanos;
    }

    /** Writes to {@code file} the config of one cluster at {@code bootstrap}, every default but the addresses. */
    static Path writeDefaultConfig(Path file, String bootstrap, int grpcPort, int restPort) throws IOException {
        Files.writeString(file, """
                grpc_addr: 127.0.0.1:%d
                tcp_addr: 127.0.0.1:%d
                proxies:
                  default:
                    kafka:
                      seed_peers: [%s]
                """.formatted(grpcPort, restPort, bootstrap));
        return file;
    }

    /** Starts {@code jar} with {@code config} and returns once {@code /_ping} answers on {@code restPort}. */
    static ChildProxy start(Path jar, Path config, int restPort, Path log) throws IOException, InterruptedException {
        ChildProxy child = launch(jar, config, log, List.of());
        try {
            child.awaitOk(restPort, "/_ping", Duration.ofSeconds(90));
        } catch (RuntimeException | InterruptedException e) {
            child.close();
            throw e;
        }
        return child;
    }

    /** Starts {@code jar} with {@code config} and these JVM flags added, without waiting for it. */
    static ChildProxy launch(Path jar, Path config, Path log, List<String> extraFlags) throws IOException {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " does not exist: build it with mvn package (./bench.sh does)");
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(PixyProcess.productionJvmSettings());
        command.addAll(extraFlags);
        // the proxy's alone, last so they can override the others: to compare collectors or heap sizes under one load
        addFlags(command, System.getenv().getOrDefault("BENCH_PROXY_FLAGS", ""));
        command.addAll(List.of("-jar", jar.toString(), "-config", config.toString()));
        Files.createDirectories(log.toAbsolutePath().getParent());
        long launched = System.nanoTime();
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
        builder.environment().putAll(PixyProcess.PRODUCTION_ENVIRONMENT);
        Process p = builder.start();
        return new ChildProxy(p, command, log, launched);
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

    /**
     * Waits until {@code path} answers 200 on {@code restPort}, looking every 5 ms; returns the time from the launch
     * of the process.
     */
    Duration awaitOk(int restPort, String path, Duration timeout) throws InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + restPort + path);
        long deadline = System.nanoTime() + timeout.toNanos();
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).build()) {
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("the proxy exited with " + process.exitValue() + "; its log:\n"
                                                    + tail());
                }
                try {
                    HttpResponse<String> rs = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2))
                            .build(), HttpResponse.BodyHandlers.ofString());
                    if (rs.statusCode() == 200) {
                        return Duration.ofNanos(System.nanoTime() - launchedNanos);
                    }
                } catch (IOException notYet) {
                    // not listening yet
                }
                Thread.sleep(5);
            }
        }
        throw new IllegalStateException("the proxy did not answer " + path + " within " + timeout + "; its log:\n"
                                        + tail());
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
        stop(Duration.ofSeconds(30));
    }

    /** SIGTERM, then SIGKILL if it has not exited within {@code grace}. */
    void stop(Duration grace) {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
