package io.kafkapixy;

import java.util.logging.Handler;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/**
 * A JUL {@link LogManager} that keeps logging during shutdown. The JDK's own shutdown hook resets the log manager,
 * closing every handler, while our hook is still draining producers and committing offsets; this one ignores that
 * reset, and {@link #flushAll()} is called by our hook when it is done.
 *
 * <p>Installed by {@link Main} through {@code java.util.logging.manager} before anything logs.
 */
public final class ShutdownSafeLogManager extends LogManager {

    @Override
    public void reset() {
        if (Thread.currentThread().getClass().getName().startsWith(LogManager.class.getName() + "$Cleaner")) {
            return;
        }
        super.reset();
    }

    /** Flushes every handler of the root logger; the last thing our shutdown hook does. */
    static void flushAll() {
        for (Handler h : Logger.getLogger("").getHandlers()) {
            h.flush();
        }
    }
}
