package io.kafkapixy.security;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * What a known client was refused: every refusal counted by client and operation, and logged with the client's name
 * and the resource, at most once per {@link #LOG_EVERY} for one client and operation (then with how many more were
 * refused meanwhile), so that a misconfigured client in a loop cannot flood the log.
 */
public final class Refusals {

    /** The least time between two log lines of one client and operation. */
    public static final Duration LOG_EVERY = Duration.ofMinutes(1);

    private final BiConsumer<String, String> count;
    private final Clock clock;
    private final Consumer<String> log;
    private final Map<List<String>, Window> windows = new ConcurrentHashMap<>();

    /**
     * @param count counts one refusal of a client (its name) and an operation (its word)
     * @param log   writes a line (a WARNING in production)
     */
    public Refusals(BiConsumer<String, String> count, Clock clock, Consumer<String> log) {
        this.count = count;
        this.clock = clock;
        this.log = log;
    }

    /** {@code client} was refused {@code operation} on {@code resource} ({@code topic orders}, {@code group g}). */
    public void refused(NamedClient client, Operation operation, String resource) {
        count.accept(client.name(), operation.word());
        Instant now = clock.instant();
        String line = windows.compute(List.of(client.name(), operation.word()), (k, w) -> Window.next(w, now))
                .line(now);
        if (line != null) {
            log.accept("Refused " + client.name() + " to " + operation.word() + " " + resource + line);
        }
    }

    /**
     * One client and operation's log window: when it last logged, the refusals not logged since, and for the refusal
     * that made it, how many went unlogged before it (-1: this one is not logged).
     */
    private record Window(Instant logged, int suppressed, int reportNow) {

        static Window next(Window before, Instant now) {
            if (before == null || !now.isBefore(before.logged.plus(LOG_EVERY))) {
                return new Window(now, 0, before == null ? 0 : before.suppressed);
            }
            return new Window(before.logged, before.suppressed + 1, -1);
        }

        /** The end of the log line when this refusal is logged, else null. */
        String line(Instant now) {
            if (reportNow < 0) {
                return null;
            }
            return reportNow == 0 ? "" : " (and " + reportNow + " more refused since the last line)";
        }
    }
}
