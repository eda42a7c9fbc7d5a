package io.kafkapixy.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The server's footprint: heap, live threads and virtual threads from its own Prometheus {@code /metrics} (Helidon's
 * JVM meters), RSS and OS threads from {@code /proc/<pid>/status} when the server is the bench's child process. A
 * figure nobody can give is -1 ("n/a"): the original Kafka-Pixy has no {@code /metrics}, an external server no pid.
 * Thread-safe; one scrape is one HTTP request on its own connection.
 */
final class ProcessStats implements AutoCloseable {

    /** One look at the server. */
    record Sample(long heapUsedBytes, long rssBytes, long osThreads, long jvmThreads, long virtualThreads,
                  long parkedRequests, long sockets, long heapCommittedBytes, long anonBytes, long groupTopics) {

        static final Sample NONE = new Sample(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1);

        /** RSS less the heap's committed pages: what the JVM holds besides the heap, or -1. */
        long nonHeapRssBytes() {
            return rssBytes < 0 || heapCommittedBytes < 0 ? -1 : rssBytes - heapCommittedBytes;
        }

        /** The peak of each figure over two samples. */
        Sample max(Sample o) {
            return new Sample(Math.max(heapUsedBytes, o.heapUsedBytes), Math.max(rssBytes, o.rssBytes),
                    Math.max(osThreads, o.osThreads), Math.max(jvmThreads, o.jvmThreads),
                    Math.max(virtualThreads, o.virtualThreads), Math.max(parkedRequests, o.parkedRequests),
                    Math.max(sockets, o.sockets), Math.max(heapCommittedBytes, o.heapCommittedBytes),
                    Math.max(anonBytes, o.anonBytes), Math.max(groupTopics, o.groupTopics));
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("heapUsedMiB", mib(heapUsedBytes));
            m.put("rssMiB", mib(rssBytes));
            m.put("rssAnonMiB", mib(anonBytes));
            m.put("heapCommittedMiB", mib(heapCommittedBytes));
            m.put("osThreads", na(osThreads));
            m.put("jvmThreads", na(jvmThreads));
            m.put("virtualThreads", na(virtualThreads));
            m.put("parkedRequests", na(parkedRequests));
            m.put("sockets", na(sockets));
            return m;
        }

        String describe() {
            return "heap " + fmtMib(heapUsedBytes) + ", RSS " + fmtMib(rssBytes)
                   + (anonBytes < 0 ? "" : " (anonymous " + fmtMib(anonBytes) + ")") + ", threads " + na(osThreads)
                   + " (JVM " + na(jvmThreads) + ", virtual " + na(virtualThreads) + ")"
                   + (parkedRequests < 0 ? "" : ", parked " + parkedRequests);
        }

        private static Object mib(long bytes) {
            return bytes < 0 ? "n/a" : Math.round(bytes / 1048576.0 * 10) / 10.0;
        }

        private static Object na(long v) {
            return v < 0 ? "n/a" : v;
        }

        static String fmtMib(long bytes) {
            return bytes < 0 ? "n/a" : String.format("%.0f MiB", bytes / 1048576.0);
        }
    }

    private final HttpRequest.Builder metrics;
    private final OptionalLong pid;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    ProcessStats(Target target) {
        this(target.request("/metrics"), target.proxyPid());
    }

    /** A server whose Prometheus endpoint is {@code metrics}, with its pid when it is a child of this process. */
    ProcessStats(URI metrics, OptionalLong pid) {
        this(HttpRequest.newBuilder(metrics), pid);
    }

    private ProcessStats(HttpRequest.Builder metrics, OptionalLong pid) {
        this.metrics = metrics;
        this.pid = pid;
    }

    Sample sample() {
        Map<String, Double> first = new HashMap<>();
        Map<String, Double> sums = new HashMap<>();
        Map<String, Integer> series = new HashMap<>();
        scrape(first, sums, series);
        long rss = -1;
        long anon = -1;
        long osThreads = -1;
        long sockets = -1;
        if (pid.isPresent()) {
            sockets = sockets(pid.getAsLong());
            try {
                for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid.getAsLong()), "status"))) {
                    if (line.startsWith("VmRSS:")) {
                        rss = Long.parseLong(line.replaceAll("\\D", "")) * 1024;
                    } else if (line.startsWith("RssAnon:")) {
                        anon = Long.parseLong(line.replaceAll("\\D", "")) * 1024;
                    } else if (line.startsWith("Threads:")) {
                        osThreads = Long.parseLong(line.replaceAll("\\D", ""));
                    }
                }
            } catch (IOException | NumberFormatException e) {
                // the process is gone or not on Linux: n/a
            }
        }
        return new Sample(value(first, "memory_usedHeap_bytes"), rss, osThreads, value(first, "thread_count"),
                value(first, "vthreads_count"), value(sums, "kafkapixy_consume_parked"), sockets,
                value(first, "memory_committedHeap_bytes"), anon,
                first.isEmpty() ? -1 : series.getOrDefault("kafkapixy_consume_parked", 0));
    }

    /**
     * A sample taken right after a full collection in the server ({@code jcmd <pid> GC.run}), so that its heap figure
     * is what is live; a plain {@link #sample()} when the server is not the bench's child.
     */
    Sample liveSample() {
        if (pid.isPresent()) {
            try {
                Process gc = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                        Long.toString(pid.getAsLong()), "GC.run").redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                gc.waitFor(60, java.util.concurrent.TimeUnit.SECONDS);
            } catch (IOException e) {
                // no jcmd: the heap figure includes garbage
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return sample();
    }

    /** Open sockets of the process (its file descriptors that are sockets), or -1. */
    private static long sockets(long pid) {
        try (var fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString().startsWith("socket:");
                } catch (IOException gone) {
                    return false;
                }
            }).count();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static long value(Map<String, Double> metrics, String name) {
        Double v = metrics.get(name);
        return v == null ? -1 : v.longValue();
    }

    /**
     * Fills metric name → the value of its first series, → the sum of its series, and → how many series it has; all
     * stay empty when the server has no Prometheus endpoint.
     */
    private void scrape(Map<String, Double> first, Map<String, Double> sums, Map<String, Integer> series) {
        try {
            HttpResponse<String> rs = http.send(metrics.copy()
                    .header("Accept", "text/plain").timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (rs.statusCode() != 200) {
                return;
            }
            for (String line : rs.body().split("\n")) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                int nameEnd = 0;
                while (nameEnd < line.length() && line.charAt(nameEnd) != '{' && line.charAt(nameEnd) != ' ') {
                    nameEnd++;
                }
                int valueStart = line.lastIndexOf(' ');
                if (nameEnd == 0 || valueStart < nameEnd) {
                    continue;
                }
                try {
                    String name = line.substring(0, nameEnd);
                    double value = Double.parseDouble(line.substring(valueStart + 1));
                    first.putIfAbsent(name, value);
                    sums.merge(name, value, Double::sum);
                    series.merge(name, 1, Integer::sum);
                } catch (NumberFormatException ignored) {
                    // a timestamp or an exemplar we do not need
                }
            }
        } catch (IOException e) {
            // no metrics endpoint answering: n/a
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        http.close();
    }
}
