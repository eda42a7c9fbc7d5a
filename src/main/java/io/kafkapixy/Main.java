package io.kafkapixy;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.helidon.logging.common.LogConfig;
import io.kafkapixy.config.ClientIds;
import io.kafkapixy.config.CommandLine;
import io.kafkapixy.config.ConfigException;
import io.kafkapixy.config.ConfigLoader;
import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.config.ProxyConfig;
import io.kafkapixy.embedded.EmbeddedKafka;

/**
 * The command line entry point: the original's flags and config file (reference §3.5), plus
 * {@code -embeddedKafka [-embeddedKafkaDir DIR]}, which starts a single-node broker in this JVM and points the
 * default cluster at it (the quick start; a config that names real brokers needs neither flag).
 */
public final class Main {

    private static final System.Logger LOG = System.getLogger(Main.class.getName());

    private Main() {
    }

    public static void main(String[] args) {
        LogConfig.configureRuntime();
        Extensions ext = Extensions.strip(args);
        PixyConfig config;
        CommandLine cli;
        try {
            cli = CommandLine.parse(ext.rest().toArray(String[]::new));
            String clientId = ClientIds.generate();
            config = cli.configFile().map(f -> ConfigLoader.load(f, clientId)).orElseGet(() -> PixyConfig.defaults(clientId));
            config = cli.applyTo(config);
        } catch (ConfigException | IllegalArgumentException e) {
            System.err.println("Failed to load config: err=(" + e.getMessage() + ")");
            System.exit(1);
            return;
        }
        EmbeddedKafka kafka = null;
        if (ext.embeddedKafka()) {
            kafka = EmbeddedKafka.start(ext.embeddedKafkaDir(), 0);
            config = withDefaultClusterAt(config, kafka.bootstrapServers());
            LOG.log(Level.INFO, "Embedded Kafka broker started: {0}", kafka.bootstrapServers());
        }
        LOG.log(Level.INFO, "Starting with config: {0}", config);
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
        cli.pidFile().ifPresent(Main::writePid);
        EmbeddedKafka broker = kafka;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.log(Level.INFO, "Stopping");
            app.close();
            if (broker != null) {
                broker.close();
            }
            LOG.log(Level.INFO, "Stopped");
        }, "kafka-pixy-shutdown"));
        LOG.log(Level.INFO, "Kafka-Pixy started: rest={0}, grpc={1}",
                app.server().restPort().map(String::valueOf).orElse("off"),
                app.server().grpcPort().map(String::valueOf).orElse("off"));
    }

    static PixyConfig withDefaultClusterAt(PixyConfig config, String bootstrap) {
        Map<String, ProxyConfig> proxies = new LinkedHashMap<>(config.proxies());
        ProxyConfig p = proxies.get(config.defaultCluster());
        proxies.put(config.defaultCluster(), p.withKafka(p.kafka().withSeedPeers(List.of(bootstrap))));
        return new PixyConfig(config.grpcAddr(), config.tcpAddr(), config.unixAddr(), config.defaultCluster(),
                proxies, config.tls(), config.logging());
    }

    private static void writePid(Path file) {
        try {
            Files.writeString(file, Long.toString(ProcessHandle.current().pid()), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "Failed to write pid file " + file + ": " + e.getMessage());
        }
    }

    /** This project's own flags, taken out before the original's flags are parsed. */
    record Extensions(boolean embeddedKafka, Path embeddedKafkaDir, List<String> rest) {

        static Extensions strip(String[] args) {
            boolean embedded = false;
            Path dir = null;
            List<String> rest = new ArrayList<>();
            for (int i = 0; i < args.length; i++) {
                String a = args[i].startsWith("--") ? args[i].substring(1) : args[i];
                if (a.equals("-embeddedKafka") || a.equals("-embeddedKafka=true")) {
                    embedded = true;
                } else if (a.equals("-embeddedKafka=false")) {
                    embedded = false;
                } else if (a.equals("-embeddedKafkaDir") && i + 1 < args.length) {
                    dir = Path.of(args[++i]);
                } else if (a.startsWith("-embeddedKafkaDir=")) {
                    dir = Path.of(a.substring("-embeddedKafkaDir=".length()));
                } else {
                    rest.add(args[i]);
                }
            }
            return new Extensions(embedded, dir, rest);
        }
    }
}
