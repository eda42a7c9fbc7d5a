package io.kafkapixy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.kafkapixy.config.CommandLine;
import io.kafkapixy.config.ConfigLoader;
import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.testing.PixyProcess;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.hasItems;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The container image ({@code Dockerfile}, {@code docker/}) and the Kubernetes manifests ({@code k8s/}) agree with
 * each other and with the proxy: the config they ship loads with the proxy's own loader and listens on the ports the
 * manifests publish, the Service, probes and Prometheus annotations reach those ports, the grace period outlasts the
 * drain, and the probe and metrics paths answer on a running instance. No image is built here (no Docker engine).
 */
class K8sManifestsTest {

    private static final Path K8S = Path.of("k8s");
    private static final Path DOCKERFILE = Path.of("Dockerfile");
    private static final String CONFIG_FILE = "/etc/kafka-pixy.yaml";
    private static final int GRPC_PORT = 19091;
    private static final int HTTP_PORT = 19092;
    private static final String CLIENT_ID = "kp_manifest_test";

    @Test
    void everyManifestIsANamespaceAgnosticKubernetesObject() {
        List<Manifest> manifests = manifests();

        List<Executable> checks = new ArrayList<>();
        for (Manifest m : manifests) {
            checks.add(() -> assertFalse(str(m.doc(), "apiVersion").isBlank(), m + ": apiVersion"));
            checks.add(() -> assertFalse(m.kind().isBlank(), m + ": kind"));
            checks.add(() -> assertFalse(m.name().isBlank(), m + ": metadata.name"));
            checks.add(() -> assertFalse(map(m.doc(), "metadata").containsKey("namespace"),
                    m + " names a namespace; the manifests are applied with kubectl -n"));
        }
        assertAll(checks);
        assertThat("kinds in k8s/", manifests.stream().map(Manifest::kind).toList(),
                hasItems("ConfigMap", "Deployment", "DaemonSet", "Service"));
    }

    @Test
    void theConfigMapsConfigLoadsWithTheProxysLoaderAndListensOnTheContainerPortsOnEveryInterface() {
        PixyConfig config = configMapConfig();

        assertEquals("0.0.0.0:" + GRPC_PORT, config.grpcAddr());
        assertEquals("0.0.0.0:" + HTTP_PORT, config.tcpAddr());
        for (Manifest workload : workloads()) {
            Map<String, Integer> ports = containerPorts(workload);
            assertEquals(Map.of("grpc", GRPC_PORT, "http", HTTP_PORT), ports, workload + ": containerPorts");
            assertEquals(port(config.grpcAddr()), ports.get("grpc"), workload + ": grpc_addr vs containerPort");
            assertEquals(port(config.tcpAddr()), ports.get("http"), workload + ": tcp_addr vs containerPort");
        }
    }

    @Test
    void workloadsMountTheConfigMapAtTheFileTheImageReads() {
        Manifest configMap = only("ConfigMap");
        Map<String, Object> data = map(configMap.doc(), "data");

        assertEquals(CONFIG_FILE, dockerConfigFlag());
        for (Manifest workload : workloads()) {
            Map<String, Object> container = container(workload);
            Map<String, Object> mount = list(container, "volumeMounts").stream().map(K8sManifestsTest::asMap)
                    .filter(v -> CONFIG_FILE.equals(v.get("mountPath"))).findFirst()
                    .orElseThrow(() -> new AssertionError(workload + " mounts nothing at " + CONFIG_FILE));
            assertTrue(data.containsKey(str(mount, "subPath")), workload + ": subPath is a key of the ConfigMap");
            Map<String, Object> volume = list(podSpec(workload), "volumes").stream().map(K8sManifestsTest::asMap)
                    .filter(v -> v.get("name").equals(mount.get("name"))).findFirst()
                    .orElseThrow(() -> new AssertionError(workload + ": no volume " + mount.get("name")));
            assertEquals(configMap.name(), str(volume, "configMap", "name"), workload + ": config volume");

            List<String> args = container.containsKey("args")
                    ? list(container, "args").stream().map(String::valueOf).toList() : List.of();
            assertTrue(CommandLine.parse(args.toArray(String[]::new)).configFile().isEmpty(),
                    workload + ": args are proxy flags that keep the mounted config");
        }
    }

    @Test
    void theServiceReachesGrpcAndHttpOnEveryWorkload() {
        Manifest service = only("Service");
        Map<String, Object> selector = map(service.doc(), "spec", "selector");
        Map<String, Map<String, Object>> servicePorts = new LinkedHashMap<>();
        list(service.doc(), "spec", "ports").forEach(p -> servicePorts.put(str(asMap(p), "name"), asMap(p)));

        assertEquals(Set.of("grpc", "http"), servicePorts.keySet());
        assertEquals(GRPC_PORT, servicePorts.get("grpc").get("port"));
        assertEquals(HTTP_PORT, servicePorts.get("http").get("port"));
        for (Manifest workload : workloads()) {
            Map<String, Object> podLabels = map(workload.doc(), "spec", "template", "metadata", "labels");
            assertTrue(podLabels.entrySet().containsAll(selector.entrySet()),
                    workload + ": pod labels " + podLabels + " match the Service's selector " + selector);
            assertEquals(GRPC_PORT, resolvePort(workload, servicePorts.get("grpc").get("targetPort")),
                    workload + ": the Service's grpc targetPort");
            assertEquals(HTTP_PORT, resolvePort(workload, servicePorts.get("http").get("targetPort")),
                    workload + ": the Service's http targetPort");
        }
    }

    @Test
    void theDaemonSetPublishesBothPortsOnItsNode() {
        Manifest daemonSet = only("DaemonSet");

        for (Object p : list(container(daemonSet), "ports")) {
            Map<String, Object> port = asMap(p);
            assertEquals(port.get("containerPort"), port.get("hostPort"), daemonSet + ": hostPort of " + port);
        }
        assertFalse(Boolean.TRUE.equals(podSpec(daemonSet).get("hostNetwork")),
                "hostPort mapping, not the node's network namespace");
    }

    @Test
    void probesAndPrometheusAnnotationsPointAtTheRestPort() {
        for (Manifest workload : workloads()) {
            Map<String, Object> container = container(workload);
            assertTrue(container.containsKey("livenessProbe"), workload + ": livenessProbe");
            assertTrue(container.containsKey("readinessProbe"), workload + ": readinessProbe");
            for (String probe : probes(container).keySet()) {
                Object port = map(container, probe, "httpGet").get("port");
                assertEquals(HTTP_PORT, resolvePort(workload, port), workload + ": " + probe + " port");
            }

            Map<String, Object> annotations = map(workload.doc(), "spec", "template", "metadata", "annotations");
            assertEquals("true", annotations.get("prometheus.io/scrape"), workload + ": prometheus.io/scrape");
            assertEquals(String.valueOf(HTTP_PORT), annotations.get("prometheus.io/port"),
                    workload + ": prometheus.io/port");
            assertEquals("/metrics", annotations.get("prometheus.io/path"), workload + ": prometheus.io/path");
        }
    }

    @Test
    void theGracePeriodOutlastsThePreStopSleepPlusTheProducersDrain() {
        Duration drain = configMapConfig().proxies().values().stream().map(p -> p.producer().shutdownTimeout())
                .max(Duration::compareTo).orElseThrow();

        for (Manifest workload : workloads()) {
            Duration grace = Duration.ofSeconds(((Number) podSpec(workload).get("terminationGracePeriodSeconds"))
                    .longValue());
            Duration preStop = preStopSleep(container(workload));
            assertTrue(grace.compareTo(preStop.plus(drain)) > 0,
                    workload + ": terminationGracePeriodSeconds " + grace.toSeconds() + "s <= preStop "
                    + preStop.toSeconds() + "s + producer.shutdown_timeout " + drain.toSeconds() + "s");
        }
    }

    @Test
    void theImageRunsAsANonRootUserAndPublishesBothPorts() {
        List<Instruction> dockerfile = dockerfile();
        List<String> exposed = dockerfile.stream().filter(i -> i.is("EXPOSE"))
                .flatMap(i -> Stream.of(i.args().split("\\s+"))).toList();
        String user = dockerfile.stream().filter(i -> i.is("USER")).reduce((a, b) -> b).orElseThrow().args();

        assertThat("EXPOSE", exposed, hasItems(String.valueOf(GRPC_PORT), String.valueOf(HTTP_PORT)));
        assertTrue(user.matches("\\d+(:\\d+)?"), "numeric USER so that runAsNonRoot can check it: " + user);
        assertNotEquals("0", user.split(":")[0]);
        assertEquals("SIGTERM", dockerfile.stream().filter(i -> i.is("STOPSIGNAL")).findFirst().orElseThrow().args());
        for (Manifest workload : workloads()) {
            assertEquals(true, map(podSpec(workload), "securityContext").get("runAsNonRoot"), workload.toString());
        }
    }

    @Test
    void theImageRunsThePackagedJarWithABakedInConfigThatLoadsAndListensOnTheExposedPorts() throws IOException {
        List<Instruction> dockerfile = dockerfile();
        Path bakedIn = dockerfile.stream().filter(i -> i.is("COPY") && !i.args().startsWith("--from"))
                .map(i -> i.args().split("\\s+")).filter(a -> a[a.length - 1].equals(CONFIG_FILE))
                .map(a -> Path.of(a[0])).findFirst()
                .orElseThrow(() -> new AssertionError("the Dockerfile copies no config to " + CONFIG_FILE));
        String builtArtifacts = dockerfile.stream().filter(i -> i.is("COPY") && i.args().startsWith("--from"))
                .map(Instruction::args).reduce("", (a, b) -> a + "\n" + b);

        PixyConfig config = ConfigLoader.load(bakedIn, CLIENT_ID);

        assertEquals(CONFIG_FILE, dockerConfigFlag());
        assertEquals("0.0.0.0:" + GRPC_PORT, config.grpcAddr());
        assertEquals("0.0.0.0:" + HTTP_PORT, config.tcpAddr());
        assertTrue(builtArtifacts.contains("target/kafka-pixy.jar") && builtArtifacts.contains("target/libs"),
                "the runtime stage takes the jar and its libs/ (the manifest's Class-Path): " + builtArtifacts);
        for (Instruction copy : dockerfile.stream().filter(i -> i.is("COPY") && !i.args().startsWith("--from"))
                .toList()) {
            String[] a = copy.args().split("\\s+");
            for (int k = 0; k < a.length - 1; k++) {
                assertTrue(Files.exists(Path.of(a[k])), "build context has " + a[k]);
            }
        }
    }

    @Test
    void theImageRunsWithTheRepositorysJvmOptionsItsAotCacheAndTheDeploymentsMemoryLimitIsTheOneTestsEmulate() {
        List<Instruction> dockerfile = dockerfile();
        List<String> argv = entrypoint();
        List<String> jvmFlags = argv.subList(1, argv.indexOf("-jar"));

        assertTrue(dockerfile.stream().anyMatch(i -> i.is("COPY") && i.args().equals("jvm.options ./jvm.options")),
                "the image has the repository's jvm.options in its WORKDIR");
        assertEquals(List.of("@/opt/kafka-pixy/jvm.options", "-XX:AOTCache=/opt/kafka-pixy/kafka-pixy.aot"), jvmFlags,
                "the ENTRYPOINT's JVM flags are jvm.options' and the trained cache, nothing spelled twice");
        assertTrue(dockerfile.stream().anyMatch(i -> i.is("COPY") && i.args().startsWith("--from=aot ")
                && i.args().contains("kafka-pixy.aot")), "the runtime stage takes the trained cache");
        assertEquals(PixyProcess.CONTAINER_MEMORY,
                str(map(container(only("Deployment")), "resources", "limits"), "memory"),
                "the Deployment's memory limit is the one the packaged-jar tests and the bench run the proxy under");
    }

    @Test
    void theProbeAndMetricsPathsOfTheManifestsAnswer200OnARunningProxy() {
        Set<String> paths = new LinkedHashSet<>();
        for (Manifest workload : workloads()) {
            Map<String, Object> container = container(workload);
            probes(container).values().forEach(p -> paths.add(str(p, "httpGet", "path")));
            paths.add(str(map(workload.doc(), "spec", "template", "metadata", "annotations"), "prometheus.io/path"));
        }
        assertThat("probe and metrics paths", paths, hasItems("/health/live", "/health/ready", "/metrics"));

        try (RunningPixy pixy = RunningPixy.start(RunningPixy.config(TestKafka.get().bootstrap()))) {
            List<Executable> checks = new ArrayList<>();
            for (String path : paths) {
                HttpResponse<String> rs = pixy.get(path);
                checks.add(() -> assertEquals(200, rs.statusCode(), "GET " + path + " -> " + rs.body()));
            }
            assertAll(checks);
        }
    }

    // ---- the manifests ----

    private record Manifest(Path file, Map<String, Object> doc) {
        String kind() {
            return str(doc, "kind");
        }

        String name() {
            return str(doc, "metadata", "name");
        }

        @Override
        public String toString() {
            Object metadata = doc.getOrDefault("metadata", Map.of());
            return file + " " + doc.get("kind") + "/" + (metadata instanceof Map<?, ?> m ? m.get("name") : null);
        }
    }

    private static List<Manifest> manifests() {
        Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()));
        List<Manifest> manifests = new ArrayList<>();
        try (Stream<Path> files = Files.list(K8S)) {
            for (Path file : files.filter(f -> f.toString().matches(".*\\.ya?ml")).sorted().toList()) {
                int before = manifests.size();
                for (Object doc : yaml.loadAll(Files.readString(file))) {
                    if (doc != null) {
                        manifests.add(new Manifest(file, asMap(doc)));
                    }
                }
                assertTrue(manifests.size() > before, file + " holds no object");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertFalse(manifests.isEmpty(), "no manifests in " + K8S.toAbsolutePath());
        return manifests;
    }

    private static Manifest only(String kind) {
        List<Manifest> found = manifests().stream().filter(m -> m.kind().equals(kind)).toList();
        assertEquals(1, found.size(), "one " + kind + " in k8s/: " + found);
        return found.getFirst();
    }

    private static List<Manifest> workloads() {
        List<Manifest> workloads = manifests().stream()
                .filter(m -> m.kind().equals("Deployment") || m.kind().equals("DaemonSet")).toList();
        assertEquals(2, workloads.size(), "a Deployment and a DaemonSet: " + workloads);
        return workloads;
    }

    private static PixyConfig configMapConfig() {
        Map<String, Object> data = map(only("ConfigMap").doc(), "data");
        return ConfigLoader.fromYaml(str(data, "kafka-pixy.yaml"), CLIENT_ID);
    }

    private static Map<String, Object> podSpec(Manifest workload) {
        return map(workload.doc(), "spec", "template", "spec");
    }

    private static Map<String, Object> container(Manifest workload) {
        List<Object> containers = list(podSpec(workload), "containers");
        assertEquals(1, containers.size(), workload + ": one container");
        return asMap(containers.getFirst());
    }

    private static Map<String, Integer> containerPorts(Manifest workload) {
        Map<String, Integer> ports = new LinkedHashMap<>();
        for (Object p : list(container(workload), "ports")) {
            ports.put(str(asMap(p), "name"), ((Number) asMap(p).get("containerPort")).intValue());
        }
        return ports;
    }

    /** A port given by number or by the name of a containerPort, as Kubernetes resolves it. */
    private static int resolvePort(Manifest workload, Object port) {
        if (port instanceof Number n) {
            return n.intValue();
        }
        Integer byName = containerPorts(workload).get(String.valueOf(port));
        if (byName == null) {
            throw new AssertionError(workload + ": no containerPort named " + port);
        }
        return byName;
    }

    private static Map<String, Map<String, Object>> probes(Map<String, Object> container) {
        Map<String, Map<String, Object>> probes = new LinkedHashMap<>();
        for (String name : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
            if (container.containsKey(name)) {
                probes.put(name, map(container, name));
            }
        }
        return probes;
    }

    private static final Pattern SLEEP = Pattern.compile("(?:^|\\s)sleep\\s+(\\d+)(?:\\s|$)");

    /** How long the preStop hook delays SIGTERM: an exec {@code sleep N}, a {@code sleep} action, or none. */
    private static Duration preStopSleep(Map<String, Object> container) {
        if (!container.containsKey("lifecycle") || !map(container, "lifecycle").containsKey("preStop")) {
            return Duration.ZERO;
        }
        Map<String, Object> preStop = map(container, "lifecycle", "preStop");
        if (preStop.containsKey("sleep")) {
            return Duration.ofSeconds(((Number) map(preStop, "sleep").get("seconds")).longValue());
        }
        if (preStop.containsKey("exec")) {
            String command = String.join(" ", list(preStop, "exec", "command").stream().map(String::valueOf)
                    .toList());
            Matcher m = SLEEP.matcher(command);
            if (m.find()) {
                return Duration.ofSeconds(Long.parseLong(m.group(1)));
            }
        }
        return fail("cannot tell how long this preStop hook takes: " + preStop);
    }

    private static int port(String address) {
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    }

    // ---- the Dockerfile ----

    private record Instruction(String keyword, String args) {
        boolean is(String k) {
            return keyword.equalsIgnoreCase(k);
        }
    }

    /** Instructions with continuation lines joined and comments dropped. */
    private static List<Instruction> dockerfile() {
        List<Instruction> instructions = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        try {
            for (String line : Files.readAllLines(DOCKERFILE)) {
                if (line.strip().startsWith("#")) {
                    continue;
                }
                if (line.endsWith("\\")) {
                    current.append(line, 0, line.length() - 1).append(' ');
                    continue;
                }
                current.append(line);
                String text = current.toString().strip();
                current.setLength(0);
                if (!text.isEmpty()) {
                    String[] parts = text.split("\\s+", 2);
                    instructions.add(new Instruction(parts[0], parts.length > 1 ? parts[1].strip() : ""));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return instructions;
    }

    /** The image's exec-form ENTRYPOINT. */
    private static List<String> entrypoint() {
        Instruction entrypoint = dockerfile().stream().filter(i -> i.is("ENTRYPOINT")).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no ENTRYPOINT"));
        return list(new Yaml(new SafeConstructor(new LoaderOptions())).load(entrypoint.args()))
                .stream().map(String::valueOf).toList();
    }

    /** The {@code -config} of the image's exec-form ENTRYPOINT, read with the proxy's own flag parser. */
    private static String dockerConfigFlag() {
        List<String> argv = entrypoint();
        int jar = argv.indexOf("-jar");
        assertTrue(jar > 0 && argv.get(jar + 1).endsWith("/kafka-pixy.jar"), "runs the packaged jar: " + argv);
        List<String> flags = argv.subList(jar + 2, argv.size());
        return CommandLine.parse(flags.toArray(String[]::new)).configFile().map(Path::toString)
                .orElseThrow(() -> new AssertionError("ENTRYPOINT has no -config: " + argv));
    }

    // ---- YAML tree access that names what is missing ----

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object node) {
        if (!(node instanceof Map<?, ?>)) {
            throw new AssertionError("expected a mapping, got " + node);
        }
        return (Map<String, Object>) node;
    }

    private static Object at(Object node, String... path) {
        Object current = node;
        for (String key : path) {
            Map<String, Object> m = asMap(current);
            if (!m.containsKey(key)) {
                throw new AssertionError("missing " + String.join(".", path) + " (no " + key + ")");
            }
            current = m.get(key);
        }
        return current;
    }

    private static Map<String, Object> map(Object node, String... path) {
        return asMap(at(node, path));
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object node, String... path) {
        Object value = at(node, path);
        if (!(value instanceof List<?>)) {
            throw new AssertionError("expected a list at " + String.join(".", path) + ", got " + value);
        }
        return (List<Object>) value;
    }

    private static String str(Object node, String... path) {
        Object value = at(node, path);
        if (!(value instanceof String s)) {
            throw new AssertionError("expected a string at " + String.join(".", path) + ", got " + value);
        }
        return s;
    }
}
