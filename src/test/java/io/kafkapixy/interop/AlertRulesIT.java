package io.kafkapixy.interop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.kafkapixy.config.KafkaConfig;
import io.kafkapixy.embedded.EmbeddedKafka;
import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.config.ProxyConfig;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The alert rules and the dashboard in {@code monitoring/} against a real run of the proxy: a proxy on a real broker
 * is driven into every condition an alert names (a client that never acks and keeps taking the message again, a
 * message given up after {@code max_retries}, too many waiting consume requests, produces Kafka refuses, a cluster
 * whose broker went away), its {@code /metrics} is scraped every round, and the scrapes become the input series
 * of a {@code promtool test rules} file (one scrape a minute of rule time, with the {@code instance} and {@code job}
 * labels Prometheus adds) that expects exactly those alerts. {@code promtool check rules} checks the file first. The
 * metric names the rules and the dashboard query are checked against the names scraped. Needs {@code promtool}
 * (Debian's prometheus); skipped without it unless {@code -Dinterop.required=true}.
 */
class AlertRulesIT {

    private static final Path PROMTOOL = Path.of("/usr/bin/promtool");
    private static final Path RULES = Path.of("monitoring", "kafka-pixy-rules.yaml");
    private static final Path DASHBOARD = Path.of("monitoring", "kafka-pixy-dashboard.json");
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Scrapes taken, one a minute of rule time: enough for the longest {@code for} (10 m) after its start. */
    private static final int SCRAPES = 17;
    private static final String INSTANCE = "pixy-1:19092";
    private static final String JOB = "kafka-pixy";
    private static final Pattern SAMPLE = Pattern.compile("^(kafkapixy_[a-zA-Z0-9_]*)(\\{(.*)})?\\s+(\\S+)$");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern METRIC_NAME = Pattern.compile("\\bkafkapixy_[a-z0-9_]+");

    private final TestKafka kafka = TestKafka.get();
    private final String stuckTopic = TestKafka.uniqueTopic("stuck");
    private final String droppedTopic = TestKafka.uniqueTopic("dropped");
    private final String busyTopic = TestKafka.uniqueTopic("busy");
    private final String smallTopic = TestKafka.uniqueTopic("small");
    private final String okTopic = TestKafka.uniqueTopic("ok");

    @Test
    void theRulesFireOnSeriesScrapedFromARealRunAndEveryQueryNamesAMeterTheProxyExports() throws Exception {
        requirePromtool();
        Ran check = run(PROMTOOL.toString(), "check", "rules", RULES.toString());
        assertEquals(0, check.exitCode(), check.output());

        kafka.createTopic(stuckTopic, 1);
        kafka.createTopic(droppedTopic, 1);
        kafka.createTopic(busyTopic, 1);
        kafka.createTopic(okTopic, 1);
        kafka.admin().createTopics(List.of(new NewTopic(smallTopic, 1, (short) 1)
                .configs(Map.of("max.message.bytes", "200")))).all().get();

        List<Map<String, Double>> scrapes = new ArrayList<>();
        Map<String, Map<String, String>> labelsOf = new TreeMap<>();
        ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
        EmbeddedKafka lost = EmbeddedKafka.start();
        try (RunningPixy pixy = RunningPixy.start(config(lost.bootstrapServers()))) {
            // the proxy starts only with every cluster reachable: this one goes away after
            lost.close();
            join(pixy, "default", stuckTopic, "stuck");
            join(pixy, "second", droppedTopic, "dropper");
            kafka.produce(stuckTopic, 0, null, "never acked");
            assertEquals(200, pixy.get(consume("default", stuckTopic, "stuck")).statusCode());

            for (int i = 0; i < SCRAPES; i++) {
                scrapes.add(scrape(pixy.get("/metrics").body(), labelsOf));
                if (i == 0) {
                    // taken after the first scrape, never acked: given up within the next rounds
                    kafka.produce(droppedTopic, 0, null, "given up");
                    assertEquals(200, pixy.get(consume("second", droppedTopic, "dropper")).statusCode());
                }
                // three waiting requests where channel_buffer_size 1 lets two wait: 429
                for (int c = 0; c < 3; c++) {
                    clients.submit(() -> pixy.get(consume("default", busyTopic, "busy")));
                }
                clients.submit(() -> pixy.get(consume("second", droppedTopic, "dropper")));
                assertEquals(500, pixy.post("/topics/" + smallTopic + "/messages?sync", "text/plain",
                        "x".repeat(4096)).statusCode());
                assertEquals(200, pixy.post("/topics/" + okTopic + "/messages?sync", "text/plain", "fine")
                        .statusCode());
                // the client that never acks takes its message again once ack_timeout has passed
                assertEquals(200, pixy.get(consume("default", stuckTopic, "stuck")).statusCode());
            }
        } finally {
            lost.close();
            clients.shutdownNow();
            clients.awaitTermination(30, TimeUnit.SECONDS);
        }

        Path test = Path.of("target", "promtool", "kafka-pixy-rules.test.yaml");
        Files.createDirectories(test.getParent());
        Files.writeString(test, promtoolTest(scrapes, labelsOf));
        Ran result = run(PROMTOOL.toString(), "test", "rules", test.toString());
        assertEquals(0, result.exitCode(), "promtool test rules " + test + ":\n" + result.output());

        Set<String> exported = new TreeSet<>();
        labelsOf.keySet().forEach(series -> exported.add(series.replaceAll("\\{.*", "")));
        assertNamesExported(Files.readString(RULES), exported, "the alert rules");
        assertNamesExported(Files.readString(DASHBOARD), exported, "the Grafana dashboard");
    }

    /**
     * {@code default}: ack_timeout 1 s, retried for ever, channel_buffer_size 1; {@code second}: ack_timeout 1 s,
     * given up at the first retry; {@code offline}: a broker of its own, stopped once the proxy is up.
     */
    private PixyConfig config(String offlineBootstrap) {
        // the never-acking client's request waits for its retry: well within a 5 s long poll
        PixyConfig base = RunningPixy.config(kafka.bootstrap(), "kp_alerts", ConsumerSettingsBuilder.fast()
                .ackTimeout(Duration.ofSeconds(1)).channelBufferSize(1).longPollingTimeout(Duration.ofSeconds(5)));
        ProxyConfig first = base.defaultProxy();
        ProxyConfig second = first.withConsumer(ConsumerSettingsBuilder.fast().ackTimeout(Duration.ofSeconds(1))
                .maxRetries(0).longPollingTimeout(Duration.ofSeconds(5)).build());
        ProxyConfig offline = first.withKafka(first.kafka().with(KafkaConfig.SEED_PEERS, List.of(offlineBootstrap)));
        Map<String, ProxyConfig> proxies = new LinkedHashMap<>();
        proxies.put("default", first);
        proxies.put("second", second);
        proxies.put("offline", offline);
        return base.withProxies(proxies);
    }

    private void join(RunningPixy pixy, String cluster, String topic, String group) {
        pixy.get(consume(cluster, topic, group));
        TestKafka.Waits.until(WAIT, group + " joined", () -> !kafka.committed(group, topic).isEmpty());
    }

    private static String consume(String cluster, String topic, String group) {
        return "/clusters/" + cluster + "/topics/" + topic + "/messages?group=" + group + "&noAck";
    }

    /** The proxy's samples by series ({@code name{labels}}, as exposed); each series' labels go in {@code labelsOf}. */
    private static Map<String, Double> scrape(String text, Map<String, Map<String, String>> labelsOf) {
        Map<String, Double> samples = new TreeMap<>();
        for (String line : text.split("\n")) {
            Matcher m = SAMPLE.matcher(line.trim());
            if (!m.matches()) {
                continue;
            }
            Map<String, String> labels = new TreeMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            String series = m.group(1) + "{" + (m.group(3) == null ? "" : m.group(3)) + "}";
            labelsOf.putIfAbsent(series, labels);
            samples.put(series, Double.parseDouble(m.group(4)));
        }
        return samples;
    }

    private String promtoolTest(List<Map<String, Double>> scrapes, Map<String, Map<String, String>> labelsOf)
            throws IOException {
        List<Map<String, Object>> inputs = new ArrayList<>();
        for (String series : labelsOf.keySet()) {
            StringBuilder values = new StringBuilder();
            for (Map<String, Double> s : scrapes) {
                Double v = s.get(series);
                values.append(values.isEmpty() ? "" : " ").append(v == null || v.isNaN() ? "_" : number(v));
            }
            String withTarget = series.replaceFirst("\\{", "{instance=\"" + INSTANCE + "\",job=\"" + JOB + "\""
                    + (series.endsWith("{}") ? "" : ","));
            Map<String, Object> input = new LinkedHashMap<>();
            input.put("series", withTarget);
            input.put("values", values.toString());
            inputs.add(input);
        }
        String at = (SCRAPES - 1) + "m";
        Map<String, Map<String, Object>> rules = alertRules();
        List<Map<String, Object>> expected = new ArrayList<>();
        expected.add(expect(rules, at, "KafkaPixyConsumerStuck", withTarget(only(labelsOf,
                "kafkapixy_consume_oldest_unacked_seconds", "group", "stuck"))));
        expected.add(expect(rules, at, "KafkaPixyRedeliveries",
                Map.of("cluster", "default", "group", "stuck", "topic", stuckTopic)));
        // an increase over the last 15 minutes: looked at while the drop (after the first scrape) is in that window
        expected.add(expect(rules, "5m", "KafkaPixyMessagesDropped",
                Map.of("cluster", "second", "group", "dropper", "topic", droppedTopic)));
        expected.add(expect(rules, at, "KafkaPixyTooManyRequests", Map.of("instance", INSTANCE)));
        Map<String, String> errors = only(labelsOf, "kafkapixy_produce_errors_total", "topic", smallTopic);
        expected.add(expect(rules, at, "KafkaPixyProduceErrors", Map.of("instance", INSTANCE, "cluster",
                errors.get("cluster"), "topic", smallTopic, "kind", errors.get("kind"))));
        expected.add(expect(rules, at, "KafkaPixyClusterUnreachable", withTarget(only(labelsOf,
                "kafkapixy_cluster_reachable", "cluster", "offline"))));
        expected.add(expect(rules, at, "KafkaPixyNotReady", withTarget(only(labelsOf, "kafkapixy_ready", null,
                null))));
        Map<String, Object> test = new LinkedHashMap<>();
        test.put("interval", "1m");
        test.put("input_series", inputs);
        test.put("alert_rule_test", expected);
        Map<String, Object> file = new LinkedHashMap<>();
        file.put("rule_files", List.of(RULES.toAbsolutePath().toString()));
        file.put("evaluation_interval", "1m");
        file.put("tests", List.of(test));
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setWidth(200);
        return new Yaml(options).dump(file);
    }

    private static String number(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }

    /** The labels of the one series {@code name} with {@code label} = {@code value} (any, when null). */
    private static Map<String, String> only(Map<String, Map<String, String>> labelsOf, String name, String label,
                                            String value) {
        List<Map<String, String>> found = labelsOf.entrySet().stream()
                .filter(e -> e.getKey().startsWith(name + "{"))
                .filter(e -> label == null || value.equals(e.getValue().get(label)))
                .map(Map.Entry::getValue).toList();
        assertEquals(1, found.size(), "one series " + name + " with " + label + "=" + value + ": " + found);
        return found.get(0);
    }

    private static Map<String, String> withTarget(Map<String, String> labels) {
        Map<String, String> all = new TreeMap<>(labels);
        all.put("instance", INSTANCE);
        all.put("job", JOB);
        return all;
    }

    /** The rules file's alerts by name. */
    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> alertRules() throws IOException {
        Map<String, Object> file = new Yaml().load(Files.readString(RULES));
        Map<String, Map<String, Object>> byName = new TreeMap<>();
        for (Object g : (List<Object>) file.get("groups")) {
            for (Object r : (List<Object>) ((Map<String, Object>) g).get("rules")) {
                Map<String, Object> rule = (Map<String, Object>) r;
                byName.put((String) rule.get("alert"), rule);
            }
        }
        return byName;
    }

    /** One firing alert expected at {@code at}: the series' labels plus the rule's, its annotations rendered. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> expect(Map<String, Map<String, Object>> rules, String at, String alert,
                                              Map<String, String> seriesLabels) {
        Map<String, Object> rule = rules.get(alert);
        assertTrue(rule != null, "no alert " + alert + " in " + RULES);
        Map<String, String> labels = new TreeMap<>(seriesLabels);
        labels.putAll((Map<String, String>) rule.getOrDefault("labels", Map.of()));
        Map<String, String> annotations = new TreeMap<>();
        ((Map<String, String>) rule.getOrDefault("annotations", Map.of())).forEach((k, v) ->
                annotations.put(k, render(v, seriesLabels)));
        Map<String, Object> exp = new LinkedHashMap<>();
        exp.put("exp_labels", labels);
        exp.put("exp_annotations", annotations);
        Map<String, Object> test = new LinkedHashMap<>();
        test.put("eval_time", at);
        test.put("alertname", alert);
        test.put("exp_alerts", List.of(exp));
        return test;
    }

    /** Prometheus' rendering of {@code {{ $labels.name }}}, the only template the rules' annotations use. */
    private static String render(String template, Map<String, String> labels) {
        Matcher m = Pattern.compile("\\{\\{\\s*\\$labels\\.(\\w+)\\s*}}").matcher(template);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(labels.getOrDefault(m.group(1), "")));
        }
        m.appendTail(out);
        assertTrue(!out.toString().contains("{{"), "a template other than $labels in " + template);
        return out.toString();
    }

    private static void assertNamesExported(String text, Set<String> exported, String where) {
        Set<String> used = new TreeSet<>();
        Matcher m = METRIC_NAME.matcher(text);
        while (m.find()) {
            used.add(m.group());
        }
        assertTrue(used.size() >= 5, where + " name few meters: " + used);
        Set<String> missing = new TreeSet<>(used);
        missing.removeAll(exported);
        assertTrue(missing.isEmpty(), where + " query meters the proxy does not export: " + missing
                + "\nexported: " + exported);
    }

    private static void requirePromtool() {
        if (!Files.isExecutable(PROMTOOL)) {
            Skips.skip("alert rules (promtool)", PROMTOOL + " is missing", "apt-get install prometheus");
        }
    }

    private record Ran(int exitCode, String output) {
    }

    private static Ran run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
        return new Ran(p.exitValue(), output);
    }
}
