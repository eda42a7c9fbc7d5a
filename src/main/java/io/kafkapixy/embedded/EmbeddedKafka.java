package io.kafkapixy.embedded;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;

/**
 * A single-node KRaft Kafka broker (combined broker and controller) running inside this JVM, built from Kafka's
 * own artifacts. It backs the quick start and the end-to-end tests when no external broker is named.
 *
 * <p>Ports are picked free at start. With a {@code dataDir} the log survives restarts; without one a temporary
 * directory is used and deleted on {@link #close()}. The caller that started it closes it.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private final KafkaConfig config;
    private KafkaRaftServer server;
    private final String bootstrapServers;
    private final java.util.Map<String, String> listenerAddresses;
    private final Path dir;
    private final boolean temporary;

    private EmbeddedKafka(KafkaConfig config, KafkaRaftServer server, String bootstrapServers,
                          java.util.Map<String, String> listenerAddresses, Path dir, boolean temporary) {
        this.config = config;
        this.server = server;
        this.bootstrapServers = bootstrapServers;
        this.listenerAddresses = java.util.Map.copyOf(listenerAddresses);
        this.dir = dir;
        this.temporary = temporary;
    }

    /** Starts a broker with a temporary data directory. */
    public static EmbeddedKafka start() {
        return start(null, 0);
    }

    /** Starts a broker with a temporary data directory and some broker settings overridden. */
    public static EmbeddedKafka start(java.util.Map<String, String> overrides) {
        return start(null, 0, overrides);
    }

    /**
     * Starts a broker with more listeners next to the PLAINTEXT one (which stays the inter-broker listener and
     * {@link #bootstrapServers()}), e.g. {@code SASL -> SASL_PLAINTEXT}, {@code TLS -> SSL}; each gets a free port,
     * see {@link #listenerAddress}. Their settings go in {@code overrides} ({@code listener.name.sasl.*}).
     */
    public static EmbeddedKafka start(java.util.Map<String, String> extraListeners,
                                      java.util.Map<String, String> overrides) {
        return start(null, 0, overrides, extraListeners);
    }

    /**
     * Starts a broker. {@code dataDir} null means a temporary directory; {@code port} 0 means any free port.
     * Returns once the broker serves clients.
     */
    public static EmbeddedKafka start(Path dataDir, int port) {
        return start(dataDir, port, java.util.Map.of());
    }

    private static EmbeddedKafka start(Path dataDir, int port, java.util.Map<String, String> overrides) {
        return start(dataDir, port, overrides, java.util.Map.of());
    }

    private static EmbeddedKafka start(Path dataDir, int port, java.util.Map<String, String> overrides,
                                       java.util.Map<String, String> extraListeners) {
        try {
            boolean temporary = dataDir == null;
            Path dir = temporary ? Files.createTempDirectory("kafka-pixy-broker") : dataDir;
            Files.createDirectories(dir);
            int brokerPort = port == 0 ? freePort() : port;
            int controllerPort = freePort();
            Properties p = new Properties();
            p.put("process.roles", "broker,controller");
            p.put("node.id", "1");
            p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
            StringBuilder listeners = new StringBuilder("PLAINTEXT://127.0.0.1:" + brokerPort);
            StringBuilder advertised = new StringBuilder("PLAINTEXT://127.0.0.1:" + brokerPort);
            StringBuilder protocols = new StringBuilder("PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            java.util.Map<String, String> addresses = new java.util.HashMap<>();
            for (var l : extraListeners.entrySet()) {
                String address = "127.0.0.1:" + freePort();
                addresses.put(l.getKey(), address);
                listeners.append(',').append(l.getKey()).append("://").append(address);
                advertised.append(',').append(l.getKey()).append("://").append(address);
                protocols.append(',').append(l.getKey()).append(':').append(l.getValue());
            }
            p.put("listeners", listeners + ",CONTROLLER://127.0.0.1:" + controllerPort);
            p.put("advertised.listeners", advertised.toString());
            p.put("controller.listener.names", "CONTROLLER");
            p.put("inter.broker.listener.name", "PLAINTEXT");
            p.put("listener.security.protocol.map", protocols.toString());
            p.put("log.dirs", dir.resolve("data").toString());
            p.put("metadata.log.dir", dir.resolve("meta").toString());
            p.put("num.partitions", "1");
            p.put("auto.create.topics.enable", "true");
            p.put("offsets.topic.replication.factor", "1");
            p.put("offsets.topic.num.partitions", "1");
            p.put("transaction.state.log.replication.factor", "1");
            p.put("transaction.state.log.min.isr", "1");
            p.put("share.coordinator.state.topic.replication.factor", "1");
            p.put("share.coordinator.state.topic.min.isr", "1");
            p.put("group.initial.rebalance.delay.ms", "0");
            // Share groups: record locks from 1 s (tests with short ack timeouts) to an hour (the quick start with
            // the original's 5 minute ack_timeout); real brokers allow 15 s to 1 minute unless told otherwise.
            p.put("group.share.min.record.lock.duration.ms", "1000");
            p.put("group.share.max.record.lock.duration.ms", "3600000");
            // A new share consumer gets its partitions at its second heartbeat: every second here, so that a pool of
            // share consumers grows within seconds (brokers default to 5 s, and no less)
            p.put("group.share.min.heartbeat.interval.ms", "1000");
            p.put("group.share.heartbeat.interval.ms", "1000");
            p.put("log.cleaner.dedupe.buffer.size", "2097152");
            p.putAll(overrides);
            KafkaConfig config = KafkaConfig.fromProps(p, false);
            if (!Files.exists(dir.resolve("meta/meta.properties"))) {
                new Formatter().setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                        .setNodeId(1)
                        .setClusterId(Uuid.randomUuid().toString())
                        .setControllerListenerName("CONTROLLER")
                        .setMetadataLogDirectory(config.metadataLogDir())
                        .addDirectory(dir.resolve("data").toString())
                        .addDirectory(config.metadataLogDir())
                        .run();
            }
            KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
            server.startup();
            return new EmbeddedKafka(config, server, "127.0.0.1:" + brokerPort, addresses, dir, temporary);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException("failed to start the embedded Kafka broker: " + e.getMessage(), e);
        }
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** {@code host:port} of a listener passed to {@link #start(java.util.Map, java.util.Map)}. */
    public String listenerAddress(String name) {
        String address = listenerAddresses.get(name);
        if (address == null) {
            throw new IllegalArgumentException("no listener " + name);
        }
        return address;
    }

    /**
     * Shuts the broker down cleanly and starts it again with the same ports and data, as an operator's rolling restart
     * of a broker does; returns once it serves again. For the fault tests.
     */
    public synchronized void restart() {
        server.shutdown();
        server.awaitShutdown();
        server = new KafkaRaftServer(config, Time.SYSTEM);
        server.startup();
    }

    @Override
    public synchronized void close() {
        server.shutdown();
        server.awaitShutdown();
        if (temporary) {
            deleteRecursively(dir);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException ignored) {
            // best effort: a temporary directory left behind is harmless
        }
    }
}
