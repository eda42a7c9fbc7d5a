package io.kafkapixy.bench;

import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/**
 * Latencies of one load worker, in nanoseconds, in an HdrHistogram (3 significant digits, so p99.9 is exact to
 * 0.1 %). Not thread-safe: each worker records into its own and the run merges them with {@link #add}, so recording
 * costs no contention between workers.
 */
final class LatencyRecorder {

    private static final long HIGHEST = TimeUnit.SECONDS.toNanos(300);

    private final Histogram histogram = new Histogram(HIGHEST, 3);

    void record(long nanos) {
        histogram.recordValue(Math.max(0, Math.min(nanos, HIGHEST)));
    }

    void add(LatencyRecorder other) {
        histogram.add(other.histogram);
    }

    long count() {
        return histogram.getTotalCount();
    }

    /** The latency at {@code percentile} (0-100) in milliseconds; NaN when nothing was recorded. */
    double millis(double percentile) {
        if (histogram.getTotalCount() == 0) {
            return Double.NaN;
        }
        return histogram.getValueAtPercentile(percentile) / 1e6;
    }

    double maxMillis() {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getMaxValue() / 1e6;
    }
}
