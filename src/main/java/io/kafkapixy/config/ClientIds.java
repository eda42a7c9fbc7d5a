package io.kafkapixy.config;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.random.RandomGenerator;

/**
 * Generates the instance's client id the way the original does. The id is this instance's member id
 * in ZooKeeper and its Kafka {@code client.id}, so it must differ between instances that share a consumer group:
 * <ol>
 *   <li>{@code NOMAD_ALLOC_ID} set: {@code kp_nomad_<first dash-separated segment>[_<NOMAD_ALLOC_INDEX>]};</li>
 *   <li>hostname unavailable: {@code kp_<8 random hex digits>};</li>
 *   <li>a {@code /proc/self/cgroup} line contains {@code /docker/}: {@code kp_<hostname>_<12 chars of the container id>};</li>
 *   <li>otherwise {@code kp_<hostname>_<pid>}.</li>
 * </ol>
 * Deliberate difference: characters a client id may not contain (outside {@code [a-zA-Z0-9._-]}) are replaced by
 * {@code _}, where the original would refuse to start with {@code ClientID is invalid}.
 */
public final class ClientIds {

    private ClientIds() {
    }

    /** The client id for this process, from its environment, hostname, cgroups and pid. */
    public static String generate() {
        return generate(System.getenv(), ClientIds::hostname, cgroupLines(), ProcessHandle.current().pid(),
                new SecureRandom());
    }

    /**
     * @param hostname     the host name; may throw when it cannot be determined
     * @param cgroupLines  the lines of {@code /proc/self/cgroup}, empty where there is none
     */
    static String generate(Map<String, String> env, Callable<String> hostname, List<String> cgroupLines, long pid,
                           RandomGenerator random) {
        String allocId = env.getOrDefault("NOMAD_ALLOC_ID", "");
        if (!allocId.isEmpty()) {
            String index = env.getOrDefault("NOMAD_ALLOC_INDEX", "");
            return sanitize("kp_nomad_" + allocId.split("-", 2)[0] + (index.isEmpty() ? "" : "_" + index));
        }
        String host;
        try {
            host = hostname.call();
        } catch (Exception e) {
            host = null;
        }
        if (host == null || host.isEmpty()) {
            byte[] token = new byte[4];
            random.nextBytes(token);
            return "kp_" + HexFormat.of().formatHex(token);
        }
        for (String line : cgroupLines) {
            int at = line.indexOf("/docker/");
            if (at >= 0) {
                String containerId = line.substring(at + "/docker/".length());
                return sanitize("kp_" + host + "_" + containerId.substring(0, Math.min(12, containerId.length())));
            }
        }
        return sanitize("kp_" + host + "_" + pid);
    }

    private static String sanitize(String id) {
        return id.replaceAll("[^a-zA-Z0-9._-]", "_");
    }

    /** Like Go's {@code os.Hostname()}: the kernel's host name where Linux exposes it, else the JDK's view. */
    private static String hostname() throws IOException {
        Path kernel = Path.of("/proc/sys/kernel/hostname");
        if (Files.isReadable(kernel)) {
            String name = Files.readString(kernel, StandardCharsets.UTF_8).strip();
            if (!name.isEmpty()) {
                return name;
            }
        }
        return InetAddress.getLocalHost().getHostName();
    }

    private static List<String> cgroupLines() {
        try {
            return Files.readAllLines(Path.of("/proc/self/cgroup"), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }
}
