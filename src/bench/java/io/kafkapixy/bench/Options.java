package io.kafkapixy.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.kafkapixy.config.Durations;

/**
 * The benchmark's command line. Durations use the proxy's own Go syntax ({@code 500ms}, {@code 10s}, {@code 1m}), so
 * the flags read like the config they are compared with.
 *
 * @param grpc           gRPC address of an external server; all three addresses together select external mode
 * @param http           REST address of an external server
 * @param kafka          bootstrap address of the external server's Kafka cluster (for topics and baselines)
 * @param parked         the capacity scenario's runs: how many consume requests are parked at once in each
 * @param parkedPerGroup how many parked requests share one group in the capacity scenario (50: the original's
 *                       default channel_buffer_size, 64, holds about 65 per group-topic)
 * @param longPoll       the server's {@code consumer.long_polling_timeout}; set on the bench's own proxy
 * @param fill           messages pre-filled for the consume scenarios; 0 sizes it from the measured produce rates
 * @param token          a bearer token every call of the bench's clients sends (an external server's credential)
 * @param clients        the bench's own proxy: named clients in a generated {@code auth.clients_file} (0: none), the
 *                       bench's clients acting as one of them
 */
record Options(Optional<HostPort> grpc, Optional<HostPort> http, Optional<HostPort> kafka, Duration duration,
               Duration warmup, Duration jitWarmup, List<Integer> parked, int parkedPerGroup, Duration longPoll, int idleTopics,
               int parkedPerIdleTopic, int fill, Optional<String> token, int clients, Set<String> scenarios, Path out,
               Path jar, boolean keepTopics, boolean help) {

    static final List<String> ALL_SCENARIOS =
            List.of("footprint", "produce-sync", "produce-async", "stream-produce", "consume", "inflight", "share",
                    "capacity",
                    "idle-topics", "join-burst");

    static final String USAGE = """
            Usage: ./bench.sh [flags]
              (no address flags)         start an embedded Kafka broker and target/kafka-pixy.jar as a child process
              --grpc host:port           measure an external Kafka-Pixy-compatible server instead: its gRPC address,
              --http host:port             its REST address,
              --kafka host:port            and its Kafka cluster (topics are created there; raw-client baselines)
              --duration 10s             measured time per scenario run
              --warmup 3s                time before each measured run (not counted)
              --jit-warmup 30s           load through both APIs and the raw client before the first scenario, so
                                         no JVM is measured while it still compiles its hot paths (0s: none)
              --parked 1000,3000,10000   the capacity scenario's runs: consume requests parked at once (per API)
              --parked-per-group 50      spread over groups of this many (the default channel_buffer_size holds 65)
              --long-poll 3s             the server's consumer.long_polling_timeout
              --idle-topics 50           idle topics in the idle-topics scenario
              --parked-per-idle-topic 3  parked requests kept on each idle topic
              --fill N                   messages pre-filled for the consume scenarios (default: sized from the
                                         produce rates measured in this run, at most 400000)
              --token T                  a bearer token sent with every REST and gRPC call (an external server's)
              --clients N                the own proxy reads a clients file of N named clients, 10 rules each,
                                         the bench acting as the last of them (the cost of permissions)
              --scenarios a,b            a subset of: footprint, produce-sync, produce-async, stream-produce,
                                         consume, inflight, share, capacity, idle-topics, join-burst
              --out path                 JSON results (default target/bench/results.json)
              --jar path                 the proxy jar for the default mode (default target/kafka-pixy.jar)
              --keep-topics              leave the bench topics on an external cluster (deleted at the end by default)
            """;

    boolean external() {
        return grpc.isPresent();
    }

    static Options parse(String[] args) {
        Optional<HostPort> grpc = Optional.empty();
        Optional<HostPort> http = Optional.empty();
        Optional<HostPort> kafka = Optional.empty();
        Duration duration = Duration.ofSeconds(10);
        Duration warmup = Duration.ofSeconds(3);
        Duration jitWarmup = Duration.ofSeconds(30);
        List<Integer> parked = List.of(1_000, 3_000, 10_000);
        int perGroup = 50;
        Duration longPoll = Duration.ofSeconds(3);
        int idleTopics = 50;
        int perIdleTopic = 3;
        int fill = 0;
        Optional<String> token = Optional.empty();
        int clients = 0;
        Set<String> scenarios = new LinkedHashSet<>(ALL_SCENARIOS);
        Path out = Path.of("target/bench/results.json");
        Path jar = Path.of("target/kafka-pixy.jar");
        boolean help = false;
        boolean keepTopics = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("-h") || arg.equals("--help")) {
                help = true;
                continue;
            }
            if (arg.equals("--keep-topics")) {
                keepTopics = true;
                continue;
            }
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument: " + arg);
            }
            String name = arg;
            String value;
            int eq = arg.indexOf('=');
            if (eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new IllegalArgumentException(arg + " needs a value");
            }
            switch (name) {
                case "--grpc" -> grpc = Optional.of(HostPort.parse(name, value));
                case "--http" -> http = Optional.of(HostPort.parse(name, value));
                case "--kafka" -> kafka = Optional.of(HostPort.parse(name, value));
                case "--duration" -> duration = positive(name, value);
                case "--warmup" -> warmup = Durations.parse(value);
                case "--jit-warmup" -> jitWarmup = Durations.parse(value);
                case "--parked" -> parked = Arrays.stream(value.split(",")).map(v -> positiveInt("--parked",
                        v.strip())).toList();
                case "--parked-per-group" -> perGroup = positiveInt(name, value);
                case "--long-poll" -> longPoll = positive(name, value);
                case "--idle-topics" -> idleTopics = positiveInt(name, value);
                case "--parked-per-idle-topic" -> perIdleTopic = positiveInt(name, value);
                case "--fill" -> fill = positiveInt(name, value);
                case "--token" -> token = Optional.of(value);
                case "--clients" -> clients = positiveInt(name, value);
                case "--scenarios" -> scenarios = scenarios(value);
                case "--out" -> out = Path.of(value);
                case "--jar" -> jar = Path.of(value);
                default -> throw new IllegalArgumentException("unknown flag: " + name);
            }
        }
        boolean anyAddress = grpc.isPresent() || http.isPresent() || kafka.isPresent();
        if (anyAddress && (grpc.isEmpty() || http.isEmpty() || kafka.isEmpty())) {
            throw new IllegalArgumentException("--grpc, --http and --kafka go together (an external server and its "
                                               + "Kafka cluster)");
        }
        if (clients > 0 && (anyAddress || token.isPresent())) {
            throw new IllegalArgumentException("--clients sets up the bench's own proxy and its token: not with an "
                                               + "external server or --token");
        }
        return new Options(grpc, http, kafka, duration, warmup, jitWarmup, parked, perGroup, longPoll, idleTopics,
                perIdleTopic, fill, token, clients, scenarios, out, jar, keepTopics, help);
    }

    private static Set<String> scenarios(String value) {
        Set<String> chosen = new LinkedHashSet<>();
        for (String s : value.split(",")) {
            String name = s.trim();
            if (name.isEmpty()) {
                continue;
            }
            if (!ALL_SCENARIOS.contains(name)) {
                throw new IllegalArgumentException("unknown scenario " + name + "; known: " + ALL_SCENARIOS);
            }
            chosen.add(name);
        }
        if (chosen.isEmpty()) {
            throw new IllegalArgumentException("--scenarios names none");
        }
        // run in the canonical order whatever the flag's order: the consume fill is sized from produce-sync
        Set<String> ordered = new LinkedHashSet<>();
        ALL_SCENARIOS.stream().filter(chosen::contains).forEach(ordered::add);
        return ordered;
    }

    private static Duration positive(String name, String value) {
        Duration d = Durations.parse(value);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be > 0, got " + value);
        }
        return d;
    }

    private static int positiveInt(String name, String value) {
        try {
            int n = Integer.parseInt(value.replace("_", ""));
            if (n <= 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a positive integer, got " + value);
        }
    }

    /** A {@code host:port} flag value. */
    record HostPort(String host, int port) {

        static HostPort parse(String flag, String value) {
            int colon = value.lastIndexOf(':');
            try {
                if (colon <= 0) {
                    throw new NumberFormatException();
                }
                return new HostPort(value.substring(0, colon), Integer.parseInt(value.substring(colon + 1)));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(flag + " needs host:port, got " + value);
            }
        }

        @Override
        public String toString() {
            return host + ":" + port;
        }
    }
}
