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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The packaged {@code target/kafka-pixy.jar} in its own process, started as a user starts it (Failsafe passes the
 * paths of the jar and of {@code jvm.options}), or as the quick start starts it. Closing it sends SIGTERM and waits for the exit.
 */
public final class PixyProcess implements AutoCloseable {

    private static final Duration STARTUP = Duration.ofSeconds(90);
    /** The memory limit of the proxy's container in k8s/deployment.yaml (K8sManifestsTest holds them together). */
    public static final String CONTAINER_MEMORY = "256Mi";

    private final Process process;
    private final Path log;

    private PixyProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** Starts the production jar with these arguments, its output (stdout and stderr) going to {@code log}. */
    public static PixyProcess launch(Path log, String... args) {
        return start(log, List.of("-jar", jar().toString()), args);
    }

    /**
     * Starts the proxy as {@code ./run.sh} does: the production jar plus the embedded broker's jars
     * ({@code target/quickstart-libs}) on the class path, so that {@code -embeddedKafka} works.
     */
    public static PixyProcess launchQuickStart(Path log, String... args) {
        Path quickStartLibs = jar().toAbsolutePath().getParent().resolve("quickstart-libs");
        return start(log, List.of("-cp", jar() + java.io.File.pathSeparator + quickStartLibs.resolve("*"),
                "io.kafkapixy.Main"), args);
    }

    /**
     * The environment the launchers (Dockerfile, run.sh) give the JVM: two C library allocator arenas instead of up to
     * eight per core, which keeps ~35 MiB of fragmented native memory from staying resident after compilations.
     */
    public static final Map<String, String> PRODUCTION_ENVIRONMENT = Map.of("MALLOC_ARENA_MAX", "2");

    /**
     * The JVM settings the proxy runs with in production: {@code jvm.options}, under the Deployment's memory limit
     * ({@code -XX:MaxRAM} stands in for the container). Shared with the benchmark's child proxy.
     */
    public static List<String> productionJvmSettings() {
        Path options = Path.of(System.getProperty("pixy.jvmOptions", "jvm.options")).toAbsolutePath();
        return List.of("@" + forThisJdk(options), containerMemoryFlag());
    }

    /**
     * {@code options} as this JDK accepts it: JDK 21 and 22 refuse {@code --sun-misc-unsafe-memory-access}, so for
     * them a copy without that line (as scripts/java-home.sh writes for the launchers).
     */
    static Path forThisJdk(Path options) {
        if (Runtime.version().feature() >= 23) {
            return options;
        }
        try {
            Path copy = Files.createTempFile("jvm", ".options");
            copy.toFile().deleteOnExit();
            Files.write(copy, Files.readAllLines(options).stream()
                    .filter(line -> !line.startsWith("--sun-misc-unsafe-memory-access")).toList());
            return copy;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code -XX:MaxRAM} for {@link #CONTAINER_MEMORY}. */
    public static String containerMemoryFlag() {
        return "-XX:MaxRAM=" + CONTAINER_MEMORY.replace("Gi", "g").replace("Mi", "m");
    }

    /** {@code target/kafka-pixy.jar}, as Failsafe names it. */
    public static Path jar() {
        return Path.of(System.getProperty("pixy.jar", "target/kafka-pixy.jar"));
    }

    private static PixyProcess start(Path log, List<String> what, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(productionJvmSettings());
        command.addAll(what);
        command.addAll(Arrays.asList(args));
        command.removeIf(String::isEmpty);
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            builder.environment().putAll(PRODUCTION_ENVIRONMENT);
            // no tracing from the machine's OTEL_* settings: with it on, every record would carry a traceparent
            builder.environment().keySet().removeIf(k -> k.startsWith("OTEL_"));
            return new PixyProcess(builder.start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Process process() {
        return process;
    }

    public long pid() {
        return process.pid();
    }

    /** SIGKILL, as a crash or an OOM killer would: nothing runs on the way out. Returns once the process is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new AssertionError("the proxy survived SIGKILL");
        }
    }

    /** SIGTERM, as {@code docker stop} or Kubernetes sends; does not wait for the exit. */
    public void terminate() {
        process.destroy();
    }

    /** SIGSTOP: the process freezes as on a stalled VM or a long pause, its sockets stay open. */
    public void suspend() {
        signal("STOP");
    }

    /** SIGCONT after {@link #suspend()}. */
    public void resume() {
        signal("CONT");
    }

    private void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
            if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new AssertionError("kill -" + name + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted sending SIG" + name);
        }
    }

    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The ports the proxy listens on; 0 for an API that is off. */
    public record Ports(int rest, int grpc) {
    }

    private static final java.util.regex.Pattern STARTED =
            java.util.regex.Pattern.compile("Kafka-Pixy started: rest=(\\w+), grpc=(\\w+)");

    /**
     * The ports the proxy bound, as its start-up line says ({@code Kafka-Pixy started: rest=N, grpc=M}); waits for it.
     * Start a proxy on port 0 ({@code 127.0.0.1:0}) and ask it here: ports picked in advance with a socket opened and
     * closed can be handed out twice (the kernel did, to a fleet's gRPC and REST ports, and the proxy could not start).
     */
    public Ports awaitPorts() {
        awaitLog("Kafka-Pixy started: ");
        java.util.regex.Matcher m = STARTED.matcher(log());
        if (!m.find()) {
            throw new AssertionError("no ports in the start-up line: " + log());
        }
        return new Ports(port(m.group(1)), port(m.group(2)));
    }

    private static int port(String said) {
        return said.equals("off") ? 0 : Integer.parseInt(said);
    }

    /** Waits until the proxy has started and its REST API answers {@code /_ping}; its ports. */
    public Ports awaitPing() {
        Ports ports = awaitPorts();
        awaitPing(ports.rest());
        return ports;
    }

    /** Waits until the REST API on this port answers {@code /_ping}; fails with the log if the process exits. */
    public PixyProcess awaitPing(int port) {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest ping = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/_ping")).build();
        awaitWithLog("the proxy to answer /_ping", () -> {
            stillRunning();
            try {
                HttpResponse<String> rs = client.send(ping, HttpResponse.BodyHandlers.ofString());
                return rs.statusCode() == 200 && rs.body().equals("pong");
            } catch (IOException notYet) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for /_ping");
            }
        });
        return this;
    }

    /** Waits until the log holds this text; fails with the log if the process exits first. */
    public PixyProcess awaitLog(String text) {
        awaitWithLog("the log to say \"" + text + "\"", () -> {
            if (log().contains(text)) {
                return true;
            }
            stillRunning();
            return false;
        });
        return this;
    }

    /** A wait whose timeout shows the proxy's log. */
    private void awaitWithLog(String what, java.util.function.Supplier<Boolean> condition) {
        try {
            TestKafka.Waits.until(STARTUP, what, condition);
        } catch (AssertionError e) {
            if (!process.isAlive()) {
                throw e;
            }
            throw new AssertionError(e.getMessage() + "; its log: " + log(), e);
        }
    }

    private void stillRunning() {
        if (!process.isAlive()) {
            throw new AssertionError("the proxy exited: " + log());
        }
    }

    /** SIGTERM, then SIGKILL if it has not stopped within a minute. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    /**
     * {@code n} ports free now and distinct from one another (each socket is held open until all are picked), for
     * programs that cannot bind port 0 and say which they got (nginx, HAProxy, a ZooKeeper restarted on its port).
     * A proxy is started on port 0 instead and asked ({@link #awaitPorts}).
     */
    public static int[] freePorts(int n) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                held.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket s : held) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing a socket that only reserved a number
                }
            }
        }
    }
}
