package io.kafkapixy.config;

import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;


import io.kafkapixy.errors.GoStrings;
import io.kafkapixy.security.BearerTokens;
import io.kafkapixy.security.ClientsFile;
import io.kafkapixy.security.JwtCheck;
import io.kafkapixy.security.ReloadedFile;
import io.kafkapixy.security.ClientTls;
import io.kafkapixy.security.ServerTls;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the original's YAML config format into a validated {@link PixyConfig}.
 *
 * <p>Top-level keys missing from the file keep their defaults; each entry of {@code proxies}, in file order, starts
 * from {@link ProxyConfig#defaults(String)} and only the keys it names are overridden; the default cluster is
 * {@code default_cluster} or else the first proxy; unknown keys are ignored (and logged). Defaults live only in the
 * records' constants, checks only in {@link Validation}.
 *
 * <p>Errors are {@link ConfigException}s: {@code failed to parse config: ...} for YAML syntax and for values of the
 * wrong type (naming the key and the value), {@code invalid config parameter: ...} for values out of bounds. Stateless
 * and thread-safe.
 */
public final class ConfigLoader {

    private static final System.Logger LOG = System.getLogger(ConfigLoader.class.getName());

    private ConfigLoader() {
    }

    /**
     * Reads and parses a config file (UTF-8).
     *
     * @param clientId the client id of every proxy that does not set {@code client_id} (see {@link ClientIds})
     * @throws ConfigException if the file cannot be read or {@link #fromYaml} rejects it; an unreadable file reads
     *                         like Go's error, e.g. {@code open /etc/kafka-pixy.yaml: no such file or directory}
     */
    public static PixyConfig load(Path file, String clientId) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException("open " + file + ": no such file or directory", e);
        } catch (AccessDeniedException e) {
            throw new ConfigException("open " + file + ": permission denied", e);
        } catch (IOException e) {
            throw new ConfigException("open " + file + ": " + e.getMessage(), e);
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new ConfigException("failed to parse config: yaml: invalid UTF-8 in " + file, e);
        }
        return fromYaml(text, clientId);
    }

    /**
     * Parses config text. Empty text has no proxies and is therefore rejected, as in the original.
     *
     * @param clientId the client id of every proxy that does not set {@code client_id} (see {@link ClientIds})
     * @throws ConfigException if the text is not valid YAML, has values of the wrong type or fails validation
     */
    public static PixyConfig fromYaml(String yamlText, String clientId) {
        YamlSection.Report report = new YamlSection.Report();
        YamlSection root = new YamlSection("", firstDocument(yamlText), report);

        PixyConfig top = PixyConfig.of(Map.of(), "").read(root);

        YamlSection proxiesSection = root.section("proxies");
        Map<String, ProxyConfig> proxies = new LinkedHashMap<>();
        Map<String, List<String>> decodingProblems = new LinkedHashMap<>();
        for (String cluster : proxiesSection.keys()) {
            List<String> problems = new ArrayList<>();
            proxies.put(cluster, proxy(proxiesSection.section(cluster), ProxyConfig.defaults(clientId), problems));
            decodingProblems.put(cluster, problems);
        }

        YamlSection tlsSection = root.section("tls");
        ServerTlsConfig tls = ServerTlsConfig.NONE.read(tlsSection);
        YamlSection authSection = root.section("auth");
        AuthConfig auth = AuthConfig.NONE.read(authSection);
        YamlSection limitsSection = root.section("limits");
        LimitsConfig limits = LimitsConfig.DEFAULT.read(limitsSection);

        List<LoggingConfig> logging = new ArrayList<>();
        for (YamlSection sink : root.sections("logging")) {
            logging.add(LoggingConfig.sink(sink.string("name", "")).withSeverity(sink.string("severity", ""))
                    .withParams(sink.stringMap("params")));
        }
        if (logging.isEmpty()) {
            logging.add(LoggingConfig.DEFAULT);
        }
        if (!report.errors().isEmpty()) {
            throw new ConfigException("failed to parse config: " + String.join("; ", report.errors()));
        }
        if (top.defaultCluster().isEmpty() && !proxies.isEmpty()) {
            top = top.with(PixyConfig.DEFAULT_CLUSTER, proxies.keySet().iterator().next());
        }
        PixyConfig config = top.withProxies(proxies).withTls(tls).withLogging(logging).withAuth(auth)
                .withLimits(limits);
        Validation.validate(config, decodingProblems);
        List<String> securityTypos = report.unknownKeys().stream().filter(ConfigLoader::isSecurityKey).toList();
        if (!securityTypos.isEmpty()) {
            throw new ConfigException("unknown config key " + String.join(", ", securityTypos)
                                      + ": a security setting that is not understood would leave the API "
                                      + "unprotected, so it stops the start (check its spelling)");
        }
        for (String key : report.unknownKeys()) {
            LOG.log(System.Logger.Level.WARNING, "Ignoring unknown config key {0}", key);
        }
        return config;
    }

    /**
     * Keys of the sections that protect the API ({@code auth}, {@code tls}): unknown there, they fail closed, where
     * an unknown key anywhere else is ignored with a warning, as the original does.
     */
    private static boolean isSecurityKey(String path) {
        return path.startsWith("auth.") || path.startsWith("tls.");
    }

    /**
     * Checks a config built in code or changed after loading (e.g. by {@link CommandLine#applyTo}) with the same
     * rules as {@link #fromYaml}.
     *
     * @return {@code config}
     * @throws ConfigException for the first violation
     */
    public static PixyConfig validate(PixyConfig config) {
        Validation.validate(config, Map.of());
        return config;
    }

    /**
     * Reads every PEM and token file the config names, so a wrong path stops the start with its reason (the
     * original checked its Kafka TLS files the same way, with these texts) instead of failing the first connection.
     * Apart from {@link #validate}, so parsing a config never touches the files it names.
     *
     * @return {@code config}
     * @throws ConfigException for the first file that cannot be used
     */
    public static PixyConfig checkSecurityFiles(PixyConfig config) {
        for (Map.Entry<String, ProxyConfig> e : config.proxies().entrySet()) {
            KafkaConfig k = e.getValue().kafka();
            if (k.tls()) {
                try {
                    ClientTls.load(k.caCertificateFile(), k.clientCertificateFile(), k.clientKeyFile(), k.insecure());
                } catch (IllegalArgumentException ex) {
                    throw new ConfigException("invalid config parameter: invalid config, cluster=" + e.getKey() + ": "
                                              + ex.getMessage());
                }
            }
        }
        try {
            ServerTlsConfig tls = config.tls();
            if (tls.enabled()) {
                ServerTls.load(tls.certificatePath(), tls.keyPath(), tls.clientCaPath());
            }
            AuthConfig auth = config.auth();
            if (auth.tokens()) {
                BearerTokens.load(auth.bearerTokensFile(), auth.bearerTokensEnv(), System::getenv);
            }
            if (!auth.clientsFile().isEmpty()) {
                new ReloadedFile<>(Path.of(auth.clientsFile()), ClientsFile::parse, "auth.clients_file");
            }
            if (!auth.jwksPath().isEmpty()) {
                new ReloadedFile<>(Path.of(auth.jwksPath()), JwtCheck::parseJwks, "auth.jwt.jwks_path");
            }
            if (!auth.jwksUrl().isEmpty()) {
                JwtCheck.jwksUrl(auth.jwksUrl());
            }
        } catch (IllegalArgumentException ex) {
            throw new ConfigException("invalid config parameter: " + ex.getMessage());
        }
        return config;
    }

    /** Like yaml.v2, only the first document counts; returns {@code null} for an empty stream. */
    private static Node firstDocument(String yamlText) {
        try {
            Iterator<Node> documents = new Yaml(new SafeConstructor(new LoaderOptions()))
                    .composeAll(new StringReader(yamlText)).iterator();
            return documents.hasNext() ? documents.next() : null;
        } catch (MarkedYAMLException e) {
            Mark mark = e.getProblemMark();
            throw new ConfigException("failed to parse config: yaml: "
                                      + (mark == null ? "" : "line " + (mark.getLine() + 1) + ": ")
                                      + e.getProblem(), e);
        } catch (YAMLException e) {
            throw new ConfigException("failed to parse config: yaml: " + e.getMessage(), e);
        }
    }

    /**
     * One {@code proxies} entry over {@code d}.
     *
     * @param problems receives violations of values the records cannot hold (partitioner, membership); they are
     *                 reported as validation errors of this cluster, as the original reports the partitioner
     */
    private static ProxyConfig proxy(YamlSection s, ProxyConfig d, List<String> problems) {
        String clientId = s.string("client_id", d.clientId());

        KafkaConfig kafka = d.kafka().read(s.section("kafka"));
        NetConfig net = d.net().read(s.section("net"));
        ZooKeeperConfig zooKeeper = d.zooKeeper().read(s.section("zoo_keeper"));

        YamlSection p = s.section("producer");
        ProducerConfig producer = d.producer().read(p);
        p.scalarText("partitioner")
                .filter(v -> ConfigKey.Type.constantNamed(ProducerConfig.Partitioner.class, v).isEmpty())
                .ifPresent(v -> problems.add("producer.partitioner is invalid: "
                                             + GoStrings.quote("bad partitioner: " + v)));

        YamlSection c = s.section("consumer");
        ConsumerConfig consumer = d.consumer().read(c);
        c.scalarText("membership")
                .filter(v -> ConfigKey.Type.constantNamed(ConsumerConfig.Membership.class, v).isEmpty())
                .ifPresent(v -> problems.add("consumer.membership must be kafka, zookeeper or share, got "
                                             + GoStrings.quote(v)));

        return new ProxyConfig(clientId, kafka, net, zooKeeper, producer, consumer);
    }
}
