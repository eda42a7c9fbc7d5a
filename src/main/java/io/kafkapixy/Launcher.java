package io.kafkapixy;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.helidon.logging.common.LogConfig;
import io.kafkapixy.config.ClientIds;
import io.kafkapixy.config.CommandLine;
import io.kafkapixy.config.ConfigException;
import io.kafkapixy.config.ConfigSummary;
import io.kafkapixy.config.KafkaConfig;
import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.config.ProxyConfig;
import io.kafkapixy.embedded.EmbeddedKafka;
import io.kafkapixy.logging.LogSetup;

/**
 * What {@link Main} runs: the command line: the original's flags and config file, plus
 * {@code -embeddedKafka [-embeddedKafkaDir DIR]}, which starts a single-node broker in this JVM and points the default
 * cluster at it (the quick start; the broker's classes come from {@code target/quickstart-libs}, which {@code ./run.sh}
 * puts on the class path), with a {@code -config} that does not name that cluster's brokers. Without
 * {@code -embeddedKafka} no broker is started.
 */
final class Launcher {

    private static final System.Logger LOG = System.getLogger(Launcher.class.getName());

    private Launcher() {
    }

    static void run(String[] args) {
        LogConfig.configureRuntime();
        PixyConfig config;
        CommandLine cli;
        try {
            cli = CommandLine.parse(args);
            if (cli.helpRequested()) {
                System.err.print(CommandLine.usage());
                System.exit(0);
                return;
            }
            config = cli.loadConfig(ClientIds.generate());
        } catch (ConfigException | IllegalArgumentException e) {
            System.err.println("Failed to load config: err=(" + e.getMessage() + ")");
            System.exit(1);
            return;
        }
        LogSetup.apply(config.logging());
        EmbeddedKafka kafka = null;
        if (cli.embeddedKafka()) {
            if (namesBrokers(cli, config)) {
                // Silently replacing brokers a user named would send messages to a broker that disappears with this
                // process.
                System.err.println("Failed to load config: err=(-embeddedKafka cannot be combined with -kafkaPeers "
                                   + "or with a -config whose default cluster sets kafka.seed_peers: they name the "
                                   + "brokers to use)");
                System.exit(1);
                return;
            }
            if (!brokerOnClassPath()) {
                System.err.println("Failed to load config: err=(-embeddedKafka needs the quick start's broker, which "
                                   + "the production artifact does not hold: start the quick start with ./run.sh "
                                   + "from the source tree, or point this jar at your brokers with -kafkaPeers or "
                                   + "-config)");
                System.exit(1);
                return;
            }
            try {
                kafka = EmbeddedKafka.start(cli.embeddedKafkaDir().orElse(null), 0);
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "Failed to start service: err=(" + e.getMessage() + ")");
                System.exit(1);
                return;
            }
            config = withDefaultClusterAt(config, kafka.bootstrapServers());
            LOG.log(Level.INFO, "Embedded Kafka broker started: {0}", kafka.bootstrapServers());
        }
        LOG.log(Level.INFO, "Effective config:\n" + ConfigSummary.render(config));
        Application app;
        try {
            app = Application.start(config);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "Failed to start service: err=(" + e.getMessage() + ")");
            if (kafka != null) {
                kafka.close();
            }
            System.exit(1);
            return;
        }
        cli.pidFile().ifPresent(Launcher::writePid);
        EmbeddedKafka broker = kafka;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.log(Level.INFO, "Stopping");
            app.close();
            if (broker != null) {
                broker.close();
            }
            LOG.log(Level.INFO, "Stopped");
            ShutdownSafeLogManager.flushAll();
        }, "kafka-pixy-shutdown"));
        LOG.log(Level.INFO, "Kafka-Pixy started: rest={0}, grpc={1}",
                app.server().restPort().map(String::valueOf).orElse("off"),
                app.server().grpcPort().map(String::valueOf).orElse("off"));
    }

    /**
     * Whether the embedded broker's classes are here: only on the quick start's class path ({@code ./run.sh} adds
     * {@code target/quickstart-libs}), never in the production artifact. Asked before {@link EmbeddedKafka} is
     * touched, which would fail to link without them.
     */
    static boolean brokerOnClassPath() {
        try {
            Class.forName("kafka.server.KafkaRaftServer", false, Launcher.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * Whether the command line names the default cluster's brokers, which the embedded broker would replace:
     * {@code -kafkaPeers}, or a config file that sets them. A config that leaves them at the default is the quick
     * start's (share groups, a shorter ack_timeout) and runs on the embedded broker.
     */
    static boolean namesBrokers(CommandLine cli, PixyConfig config) {
        return !cli.kafkaPeers().isEmpty()
               || !config.defaultProxy().kafka().seedPeers().equals(KafkaConfig.SEED_PEERS.dflt());
    }

    static PixyConfig withDefaultClusterAt(PixyConfig config, String bootstrap) {
        Map<String, ProxyConfig> proxies = new LinkedHashMap<>(config.proxies());
        ProxyConfig p = proxies.get(config.defaultCluster());
        proxies.put(config.defaultCluster(), p.withKafka(p.kafka().with(KafkaConfig.SEED_PEERS, List.of(bootstrap))));
        return config.withProxies(proxies);
    }

    private static void writePid(Path file) {
        try {
            Files.writeString(file, Long.toString(ProcessHandle.current().pid()), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "Failed to write pid file " + file + ": " + e.getMessage());
        }
    }
}
