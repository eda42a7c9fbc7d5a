package io.kafkapixy.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The packaged {@code target/kafka-pixy.jar} in its own process, started as a user starts it (Failsafe passes the
 * jar's path and the JVM flags). Closing it sends SIGTERM and waits for the exit.
 */
public final class PixyProcess implements AutoCloseable {

    private final Process process;
    private final Path log;

    private PixyProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** Starts the jar with these arguments, its output (stdout and stderr) going to {@code log}. */
    public static PixyProcess launch(Path log, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Arrays.asList(System.getProperty("pixy.jvmFlags", "").trim().split("\\s+")));
        command.add("-Xmx512m");
        command.add("-jar");
        command.add(System.getProperty("pixy.jar", "target/kafka-pixy.jar"));
        command.addAll(Arrays.asList(args));
        command.removeIf(String::isEmpty);
        try {
            return new PixyProcess(new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Process process() {
        return process;
    }

    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until the REST API on this port answers {@code /_ping}; fails with the log if the process exits. */
    public PixyProcess awaitPing(int port) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("the proxy exited: " + log());
            }
            try {
                HttpResponse<String> rs = client.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/_ping")).build(), HttpResponse.BodyHandlers.ofString());
                if (rs.statusCode() == 200 && rs.body().equals("pong")) {
                    return this;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the proxy did not answer /_ping: " + log());
    }

    /** Waits until the log holds this text; fails with the log if the process exits first. */
    public PixyProcess awaitLog(String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (log().contains(text)) {
                return this;
            }
            if (!process.isAlive()) {
                throw new AssertionError("the proxy exited: " + log());
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the log never said \"" + text + "\": " + log());
    }

    /** SIGTERM, then SIGKILL if it has not stopped within a minute. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
