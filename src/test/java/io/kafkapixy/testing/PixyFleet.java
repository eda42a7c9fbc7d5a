package io.kafkapixy.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Instances of the packaged jar, each its own process with its own config file and ports, as an operator runs several
 * next to each other: the fault tests start two or three, then kill, stop or freeze one by pid.
 */
public final class PixyFleet implements AutoCloseable {

    /** One running instance; {@code name} is also its {@code client_id} (its member id in ZooKeeper mode). */
    public record Instance(String name, int rest, int grpc, PixyProcess process) {
    }

    private final Path dir;
    private final Map<String, Instance> instances = new LinkedHashMap<>();

    public PixyFleet(Path dir) {
        this.dir = dir;
    }

    /**
     * Starts one instance per name, all at once, and waits until each answers {@code /_ping}. {@code clusterYaml} is
     * the body of the one cluster's entry under {@code proxies} (kafka, zoo_keeper, consumer, ... sections).
     */
    public List<Instance> start(String clusterYaml, String... names) {
        Map<String, PixyProcess> launched = new LinkedHashMap<>();
        for (String name : names) {
            String config = """
                    grpc_addr: 127.0.0.1:0
                    tcp_addr: 127.0.0.1:0
                    proxies:
                      pixy:
                        client_id: %s
                    %s""".formatted(name, clusterYaml.indent(4));
            Path file = dir.resolve(name + ".yaml");
            try {
                Files.writeString(file, config);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            launched.put(name, PixyProcess.launch(dir.resolve(name + ".log"), "-config", file.toString()));
        }
        List<Instance> started = new ArrayList<>();
        try {
            launched.forEach((name, process) -> {
                PixyProcess.Ports ports = process.awaitPing();
                Instance instance = new Instance(name, ports.rest(), ports.grpc(), process);
                instances.put(name, instance);
                started.add(instance);
            });
        } finally {
            // one that did not start fails the test: the others are stopped too, not left running
            if (started.size() < launched.size()) {
                launched.values().forEach(PixyProcess::terminate);
            }
        }
        return started;
    }

    public Instance get(String name) {
        Instance instance = instances.get(name);
        if (instance == null) {
            throw new IllegalArgumentException("no instance " + name);
        }
        return instance;
    }

    /** The logs of every instance, for a failing test's message. */
    public String logs() {
        StringBuilder b = new StringBuilder();
        for (Instance i : instances.values()) {
            String log = i.process().log();
            b.append("\n---- ").append(i.name()).append(" ----\n")
                    .append(log.length() > 20_000 ? "..." + log.substring(log.length() - 20_000) : log);
        }
        return b.toString();
    }

    /** Stops every instance still running (a frozen one is thawed first, so that SIGTERM reaches it). */
    @Override
    public void close() throws InterruptedException {
        for (Instance i : instances.values()) {
            if (i.process().process().isAlive()) {
                i.process().resume();
            }
        }
        for (Instance i : instances.values()) {
            i.process().terminate();
        }
        for (Instance i : instances.values()) {
            i.process().close();
        }
    }
}
