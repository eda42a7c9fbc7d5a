package io.kafkapixy;

/**
 * The command line entry point. It only installs the {@link ShutdownSafeLogManager} (which must happen before any
 * class touches logging) and hands over to {@link Launcher}.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        if (System.getProperty("java.util.logging.manager") == null) {
            System.setProperty("java.util.logging.manager", ShutdownSafeLogManager.class.getName());
        }
        Launcher.run(args);
    }
}
