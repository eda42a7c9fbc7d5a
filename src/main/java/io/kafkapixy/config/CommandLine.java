package io.kafkapixy.config;

import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.kafkapixy.errors.GoStrings;
import jakarta.json.Json;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

/**
 * The original's command-line flags, parsed with Go {@code flag} package rules: {@code -name value},
 * {@code -name=value}, {@code --name value} and {@code --name=value}; the bool flags {@code -tls} and
 * {@code -insecureTLS} take no separate value ({@code -tls=false} is accepted); parsing stops at the first argument
 * that is not a flag or after {@code --}; a repeated flag takes its last value; {@code -h}/{@code -help} request the
 * usage text. A flag given as an empty string counts as not given.
 *
 * <p>{@link #applyTo} lets the flags override a loaded config; proxy-level flags change only the default cluster.
 * Immutable.
 */
public final class CommandLine {

    private enum Kind { STRING, BOOL }

    private record Flag(String name, Kind kind, String usage) {
    }

    private static final Map<String, Flag> FLAGS = new LinkedHashMap<>();

    static {
        define("config", Kind.STRING, "YAML configuration file; without it the built-in defaults are used");
        define("grpcAddr", Kind.STRING, "TCP address of the gRPC API server (grpc_addr)");
        define("tcpAddr", Kind.STRING, "TCP address of the HTTP API server (tcp_addr)");
        define("unixAddr", Kind.STRING, "Unix domain socket of the HTTP API server (unix_addr)");
        define("kafkaPeers", Kind.STRING, "comma separated Kafka seed peers of the default cluster (kafka.seed_peers)");
        define("zookeeperPeers", Kind.STRING,
                "host:port[,host:port...][/chroot] ZooKeeper peers and chroot of the default cluster (zoo_keeper)");
        define("pidFile", Kind.STRING, "file to write the process id to");
        define("logging", Kind.STRING, "logging config as a JSON array, e.g. [{\"name\":\"console\",\"severity\":\"info\"}]");
        define("tls", Kind.BOOL, "connect to Kafka of the default cluster over TLS (kafka.tls)");
        define("caCertFile", Kind.STRING, "PEM CA bundle for Kafka TLS (kafka.ca_certificate_file)");
        define("clientCertFile", Kind.STRING, "PEM client certificate for Kafka TLS (kafka.client_certificate_file)");
        define("clientCertKeyFile", Kind.STRING, "PEM client key for Kafka TLS (kafka.client_key_file)");
        define("insecureTLS", Kind.BOOL, "do not verify Kafka's TLS certificate (kafka.insecure)");
        // Not in the original: the quick start's broker inside this JVM.
        define("embeddedKafka", Kind.BOOL,
                "start a single-node Kafka broker in this process and point the default cluster at it");
        define("accessLog", Kind.BOOL, "log one line per REST and gRPC request (access_log)");
        define("embeddedKafkaDir", Kind.STRING,
                "data directory of the embedded broker, kept across restarts (default: a temporary directory)");
        // Not in the original either: share groups from the quick start's one command.
        define("membership", Kind.STRING,
                "consumer groups of the default cluster: kafka, zookeeper or share (consumer.membership)");
    }

    private static void define(String name, Kind kind, String usage) {
        FLAGS.put(name, new Flag(name, kind, usage));
    }

    private final Map<String, String> strings;
    private final boolean kafkaTls;
    private final boolean insecureTls;
    private final boolean accessLog;
    private final boolean embeddedKafka;
    private final boolean helpRequested;
    private final List<String> arguments;
    private final Optional<List<LoggingConfig>> logging;

    private CommandLine(Map<String, String> strings, boolean kafkaTls, boolean insecureTls, boolean accessLog,
                        boolean embeddedKafka, boolean helpRequested, List<String> arguments) {
        this.accessLog = accessLog;
        this.strings = Map.copyOf(strings);
        this.kafkaTls = kafkaTls;
        this.insecureTls = insecureTls;
        this.embeddedKafka = embeddedKafka;
        this.helpRequested = helpRequested;
        this.arguments = List.copyOf(arguments);
        this.logging = loggingJson().map(CommandLine::parseLogging);
    }

    /**
     * @throws ConfigException with Go's text: {@code flag provided but not defined: -x},
     *                         {@code flag needs an argument: -config}, {@code bad flag syntax: ---x},
     *                         {@code invalid boolean value "x" for -tls: parse error}, or for a {@code -logging} value
     *                         that is not a JSON array of logger objects
     */
    public static CommandLine parse(String... args) {
        Map<String, String> strings = new LinkedHashMap<>();
        boolean kafkaTls = false;
        boolean insecureTls = false;
        boolean accessLog = false;
        boolean embeddedKafka = false;
        boolean help = false;
        int i = 0;
        while (i < args.length) {
            String arg = args[i];
            if (arg.length() < 2 || arg.charAt(0) != '-') {
                break;
            }
            int minuses = arg.charAt(1) == '-' ? 2 : 1;
            if (minuses == 2 && arg.length() == 2) {
                i++; // "--" ends the flags
                break;
            }
            String name = arg.substring(minuses);
            if (name.isEmpty() || name.charAt(0) == '-' || name.charAt(0) == '=') {
                throw new ConfigException("bad flag syntax: " + arg);
            }
            i++;
            String value = null;
            int eq = name.indexOf('=', 1);
            if (eq > 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            Flag flag = FLAGS.get(name);
            if (flag == null) {
                if (name.equals("h") || name.equals("help")) {
                    help = true;
                    break;
                }
                throw new ConfigException("flag provided but not defined: -" + name);
            }
            if (flag.kind() == Kind.BOOL) {
                boolean on = value == null || parseBool(value, name);
                switch (name) {
                    case "tls" -> kafkaTls = on;
                    case "insecureTLS" -> insecureTls = on;
                    case "accessLog" -> accessLog = on;
                    default -> embeddedKafka = on;
                }
                continue;
            }
            if (value == null) {
                if (i >= args.length) {
                    throw new ConfigException("flag needs an argument: -" + name);
                }
                value = args[i++];
            }
            if (value.isEmpty()) {
                strings.remove(name);
            } else {
                strings.put(name, value);
            }
        }
        String membership = strings.get("membership");
        if (membership != null && ConfigKey.Type.constantNamed(ConsumerConfig.Membership.class, membership).isEmpty()) {
            throw new ConfigException("invalid value " + GoStrings.quote(membership)
                                      + " for flag -membership: must be kafka, zookeeper or share");
        }
        return new CommandLine(strings, kafkaTls, insecureTls, accessLog, embeddedKafka, help,
                Arrays.asList(args).subList(Math.min(i, args.length), args.length));
    }

    /** The usage text, one line per flag, for {@code -h}. */
    public static String usage() {
        StringBuilder out = new StringBuilder("Usage of kafka-pixy:\n");
        for (Flag f : FLAGS.values()) {
            out.append("  -").append(f.name()).append(f.kind() == Kind.STRING ? " string" : "").append('\n')
                    .append("    \t").append(f.usage()).append('\n');
        }
        return out.toString();
    }

    public boolean helpRequested() {
        return helpRequested;
    }

    /** Arguments after the flags; the original ignores them. */
    public List<String> arguments() {
        return arguments;
    }

    public Optional<Path> configFile() {
        return string("config").map(Path::of);
    }

    public Optional<Path> pidFile() {
        return string("pidFile").map(Path::of);
    }

    public Optional<String> grpcAddr() {
        return string("grpcAddr");
    }

    public Optional<String> tcpAddr() {
        return string("tcpAddr");
    }

    public Optional<String> unixAddr() {
        return string("unixAddr");
    }

    /** {@code -kafkaPeers} split at commas, blanks dropped; empty when not given. */
    public List<String> kafkaPeers() {
        return string("kafkaPeers").map(CommandLine::csv).orElse(List.of());
    }

    /** {@code -zookeeperPeers} as given. */
    public Optional<String> zookeeperPeers() {
        return string("zookeeperPeers");
    }

    /** The {@code host:port} list of {@code -zookeeperPeers} (before the first {@code /}); empty when not given. */
    public List<String> zookeeperSeedPeers() {
        return zookeeperPeers().map(v -> csv(v.indexOf('/') >= 0 ? v.substring(0, v.indexOf('/')) : v))
                .orElse(List.of());
    }

    /** The chroot of {@code -zookeeperPeers}: everything from its first {@code /}, if there is one. */
    public Optional<String> zookeeperChroot() {
        return zookeeperPeers().filter(v -> v.indexOf('/') >= 0).map(v -> v.substring(v.indexOf('/')));
    }

    /** {@code -logging} as given (a JSON array). */
    public Optional<String> loggingJson() {
        return string("logging");
    }

    /** {@code -logging} parsed; a JSON object missing {@code name} or {@code severity} has "" there. */
    public Optional<List<LoggingConfig>> logging() {
        return logging;
    }

    public boolean kafkaTls() {
        return kafkaTls;
    }

    public boolean insecureTls() {
        return insecureTls;
    }

    /** {@code -embeddedKafka}: run a broker in this process for the default cluster (this project's own flag). */
    public boolean embeddedKafka() {
        return embeddedKafka;
    }

    /** {@code -membership}: the default cluster's {@code consumer.membership} (this project's own flag). */
    public Optional<ConsumerConfig.Membership> membership() {
        return string("membership").flatMap(m -> ConfigKey.Type.constantNamed(ConsumerConfig.Membership.class, m));
    }

    /** {@code -embeddedKafkaDir}: where the embedded broker keeps its data. */
    public Optional<Path> embeddedKafkaDir() {
        return Optional.ofNullable(strings.get("embeddedKafkaDir")).map(Path::of);
    }

    public Optional<String> caCertFile() {
        return string("caCertFile");
    }

    public Optional<String> clientCertFile() {
        return string("clientCertFile");
    }

    public Optional<String> clientCertKeyFile() {
        return string("clientCertKeyFile");
    }

    /**
     * The config with the given flags applied: addresses, logging and {@code -accessLog} at the top level; Kafka peers
     * and TLS, ZooKeeper peers and chroot, and {@code -membership} in the default cluster only. {@code -tls},
     * {@code -insecureTLS} and {@code -accessLog} can only turn the setting on. Does not validate.
     */
    public PixyConfig applyTo(PixyConfig config) {
        Map<String, ProxyConfig> proxies = new LinkedHashMap<>(config.proxies());
        ProxyConfig proxy = proxies.get(config.defaultCluster());
        if (proxy != null) {
            KafkaConfig k = proxy.kafka();
            k = k.with(KafkaConfig.SEED_PEERS, kafkaPeers().isEmpty() ? k.seedPeers() : kafkaPeers())
                    .with(KafkaConfig.TLS, k.tls() || kafkaTls)
                    .with(KafkaConfig.CA_CERTIFICATE_FILE, caCertFile().orElse(k.caCertificateFile()))
                    .with(KafkaConfig.CLIENT_CERTIFICATE_FILE, clientCertFile().orElse(k.clientCertificateFile()))
                    .with(KafkaConfig.CLIENT_KEY_FILE, clientCertKeyFile().orElse(k.clientKeyFile()))
                    .with(KafkaConfig.INSECURE, k.insecure() || insecureTls);
            ZooKeeperConfig z = proxy.zooKeeper();
            if (!zookeeperSeedPeers().isEmpty()) {
                z = z.with(ZooKeeperConfig.SEED_PEERS, zookeeperSeedPeers());
            }
            z = z.with(ZooKeeperConfig.CHROOT, zookeeperChroot().orElse(z.chroot()));
            ConsumerConfig c = membership().map(m -> proxy.consumer().with(ConsumerConfig.MEMBERSHIP, m))
                    .orElse(proxy.consumer());
            proxies.put(config.defaultCluster(), proxy.withKafka(k).withZooKeeper(z).withConsumer(c));
        }
        return config.with(PixyConfig.GRPC_ADDR, grpcAddr().orElse(config.grpcAddr()))
                .with(PixyConfig.TCP_ADDR, tcpAddr().orElse(config.tcpAddr()))
                .with(PixyConfig.UNIX_ADDR, unixAddr().orElse(config.unixAddr()))
                .with(PixyConfig.ACCESS_LOG, config.accessLog() || accessLog)
                .withProxies(proxies)
                .withLogging(logging().orElse(config.logging()));
    }

    /**
     * What the original's {@code main} does with its flags: the {@code -config} file (or the built-in defaults with
     * one proxy named {@code default}), overridden by the other flags, validated.
     *
     * @param clientId the client id of proxies without {@code client_id} (see {@link ClientIds#generate()})
     * @throws ConfigException if the file cannot be read or the result is invalid
     */
    public PixyConfig loadConfig(String clientId) {
        PixyConfig base = configFile().map(file -> ConfigLoader.load(file, clientId))
                .orElseGet(() -> PixyConfig.defaults(clientId));
        return ConfigLoader.checkSecurityFiles(ConfigLoader.validate(applyTo(base)));
    }

    private Optional<String> string(String name) {
        return Optional.ofNullable(strings.get(name));
    }

    private static List<String> csv(String value) {
        List<String> out = new ArrayList<>();
        for (String part : value.split(",")) {
            if (!part.isBlank()) {
                out.add(part.strip());
            }
        }
        return List.copyOf(out);
    }

    /** Go's {@code strconv.ParseBool}. */
    private static boolean parseBool(String value, String flag) {
        return switch (value) {
            case "1", "t", "T", "TRUE", "true", "True" -> true;
            case "0", "f", "F", "FALSE", "false", "False" -> false;
            default -> throw new ConfigException(
                    "invalid boolean value " + GoStrings.quote(value) + " for -" + flag + ": parse error");
        };
    }

    /** Go's {@code json.Unmarshal} into {@code []LoggerCfg}: field names match case-insensitively. */
    private static List<LoggingConfig> parseLogging(String json) {
        try (JsonReader reader = Json.createReader(new StringReader(json))) {
            JsonValue root = reader.readValue();
            if (root.getValueType() == JsonValue.ValueType.NULL) {
                return List.of();
            }
            if (root.getValueType() != JsonValue.ValueType.ARRAY) {
                throw badLogging(json, "want a JSON array of {\"name\", \"severity\", \"params\"} objects");
            }
            List<LoggingConfig> out = new ArrayList<>();
            for (JsonValue item : root.asJsonArray()) {
                if (item.getValueType() != JsonValue.ValueType.OBJECT) {
                    throw badLogging(json, "want a JSON array of {\"name\", \"severity\", \"params\"} objects");
                }
                String name = "";
                String severity = "";
                Map<String, String> params = new LinkedHashMap<>();
                for (Map.Entry<String, JsonValue> field : ((JsonObject) item).entrySet()) {
                    switch (field.getKey().toLowerCase(java.util.Locale.ROOT)) {
                        case "name" -> name = jsonString(json, "name", field.getValue());
                        case "severity" -> severity = jsonString(json, "severity", field.getValue());
                        case "params" -> {
                            if (field.getValue().getValueType() == JsonValue.ValueType.OBJECT) {
                                for (Map.Entry<String, JsonValue> p : field.getValue().asJsonObject().entrySet()) {
                                    params.put(p.getKey(), jsonString(json, "params." + p.getKey(), p.getValue()));
                                }
                            } else if (field.getValue().getValueType() != JsonValue.ValueType.NULL) {
                                throw badLogging(json, "params must be an object of strings");
                            }
                        }
                        default -> {
                            // Unknown fields are ignored, as by encoding/json.
                        }
                    }
                }
                out.add(LoggingConfig.sink(name).withSeverity(severity).withParams(params));
            }
            return List.copyOf(out);
        } catch (JsonException | IllegalStateException e) {
            throw badLogging(json, e.getMessage());
        }
    }

    private static String jsonString(String json, String field, JsonValue value) {
        return switch (value.getValueType()) {
            case STRING -> ((JsonString) value).getString();
            case NULL -> "";
            default -> throw badLogging(json, field + " must be a string");
        };
    }

    private static ConfigException badLogging(String json, String problem) {
        return new ConfigException("invalid value " + GoStrings.quote(json) + " for flag -logging: " + problem);
    }
}
