package io.kafkapixy.ops;

import java.lang.management.ManagementFactory;
import java.util.function.Supplier;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Virtual-thread gauges read from the JDK's {@code VirtualThreadSchedulerMXBean} (JDK 24+) when it is there: threads
 * mounted on a carrier, threads queued for one, the scheduler's parallelism and pool size. Reading it costs a few
 * field reads; Helidon's own virtual-thread meters stream JFR events for every thread started, which costs a
 * request-sized share of CPU and heap at this server's request rates, so they stay off.
 */
final class VirtualThreadGauges {

    private static final String BEAN = "jdk.management:type=VirtualThreadScheduler";

    private VirtualThreadGauges() {
    }

    static void register(PixyMetrics metrics) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name;
        try {
            name = new ObjectName(BEAN);
            if (!server.isRegistered(name)) {
                return;
            }
        } catch (JMException e) {
            return;
        }
        gauge(metrics, server, name, "kafkapixy.vthreads.mounted", "MountedVirtualThreadCount",
                "Virtual threads mounted on a carrier thread");
        gauge(metrics, server, name, "kafkapixy.vthreads.queued", "QueuedVirtualThreadCount",
                "Virtual threads waiting for a carrier thread");
        gauge(metrics, server, name, "kafkapixy.vthreads.parallelism", "Parallelism",
                "Carrier threads the virtual-thread scheduler aims for");
        gauge(metrics, server, name, "kafkapixy.vthreads.pool.size", "PoolSize",
                "Carrier threads the virtual-thread scheduler has");
    }

    private static void gauge(PixyMetrics metrics, MBeanServer server, ObjectName bean, String meter,
                              String attribute, String description) {
        Supplier<Long> read = () -> {
            try {
                return ((Number) server.getAttribute(bean, attribute)).longValue();
            } catch (JMException | RuntimeException e) {
                return -1L;
            }
        };
        metrics.gauge(meter, description, read);
    }
}
