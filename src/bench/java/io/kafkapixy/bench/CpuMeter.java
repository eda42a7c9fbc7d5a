package io.kafkapixy.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * CPU used by the proxy (when it is the bench's child) and by the bench's own JVM (load generators, raw clients and,
 * in the default mode, the embedded broker), from {@code /proc/<pid>/stat}. On a 2-core machine the three share the
 * cores, so a rate is best read next to who burnt them. Thread-safe.
 */
final class CpuMeter {

    /** USER_HZ: Linux reports CPU times in these ticks, 100 on every common platform. */
    private static final long TICKS_PER_SECOND = 100;

    /** CPU times at one instant; -1 where unknown. {@code proxyJitNanos}: the proxy's compiler threads'. */
    record Snapshot(long wallNanos, long proxyCpuNanos, long benchCpuNanos, long proxyJitNanos) {
    }

    /**
     * Average cores used between two snapshots; NaN where unknown. {@code proxyJitCores} is the part of
     * {@code proxyCores} its JIT compilers used: compiling, not serving.
     */
    record Usage(double proxyCores, double benchCores, double proxyJitCores) {

        static final Usage UNKNOWN = new Usage(Double.NaN, Double.NaN, Double.NaN);

        String describe() {
            return "CPU cores: proxy " + fmt(proxyCores) + (Double.isNaN(proxyJitCores) ? ""
                    : " (JIT " + fmt(proxyJitCores) + ")") + ", bench JVM " + fmt(benchCores);
        }

        private static String fmt(double v) {
            return Double.isNaN(v) ? "n/a" : String.format("%.2f", v);
        }
    }

    private final OptionalLong proxyPid;

    CpuMeter(OptionalLong proxyPid) {
        this.proxyPid = proxyPid;
    }

    Snapshot snapshot() {
        return new Snapshot(System.nanoTime(), proxyPid.isPresent() ? cpuNanos(Long.toString(proxyPid.getAsLong()))
                : -1, cpuNanos("self"), proxyCompilerNanos());
    }

    static Usage between(Snapshot from, Snapshot to) {
        double wall = to.wallNanos() - from.wallNanos();
        return new Usage(cores(from.proxyCpuNanos(), to.proxyCpuNanos(), wall),
                cores(from.benchCpuNanos(), to.benchCpuNanos(), wall),
                cores(from.proxyJitNanos(), to.proxyJitNanos(), wall));
    }

    private static double cores(long from, long to, double wall) {
        return from < 0 || to < 0 || wall <= 0 ? Double.NaN : (to - from) / wall;
    }

    /**
     * CPU the proxy's JIT compiler threads ({@code C1 CompilerThread*}, {@code C2 CompilerThread*}) have used so far,
     * from {@code /proc/<pid>/task/*}; -1 when unknown (no child proxy).
     */
    long proxyCompilerNanos() {
        if (proxyPid.isEmpty()) {
            return -1;
        }
        Path tasks = Path.of("/proc", Long.toString(proxyPid.getAsLong()), "task");
        long total = 0;
        try (var threads = Files.list(tasks)) {
            for (Path t : (Iterable<Path>) threads::iterator) {
                try {
                    String comm = Files.readString(t.resolve("comm")).strip();
                    if (comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler")) {
                        total += Math.max(0, statNanos(t.resolve("stat")));
                    }
                } catch (IOException | RuntimeException threadGone) {
                    // a thread that ended meanwhile
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return total;
    }

    /** utime + stime of a process, or -1. */
    private static long cpuNanos(String pid) {
        return statNanos(Path.of("/proc", pid, "stat"));
    }

    /** utime + stime from a {@code stat} file of a process or a thread, or -1. */
    private static long statNanos(Path file) {
        try {
            String stat = Files.readString(file);
            // the command name (field 2) may hold spaces; the fields after it are counted from its closing paren
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
            return ticks * (1_000_000_000L / TICKS_PER_SECOND);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
