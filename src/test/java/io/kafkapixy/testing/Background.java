package io.kafkapixy.testing;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Threads for requests a test runs at the same time. Not the common pool: its parallelism follows the core count, so
 * blocking calls there may run one after another on small machines and change what a test observes.
 */
public final class Background {

    public static final ExecutorService THREADS = Executors.newVirtualThreadPerTaskExecutor();

    private Background() {
    }
}
