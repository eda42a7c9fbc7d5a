package io.kafkapixy.ops;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.lang.management.PlatformManagedObject;
import java.util.Optional;
import java.util.function.Supplier;

import io.helidon.common.LazyValue;

/**
 * Virtual-thread gauges read from the JDK's {@code VirtualThreadSchedulerMXBean} (JDK 24+) when it is there: threads
 * mounted on a carrier, threads queued for one, the scheduler's parallelism and pool size. Reading it costs a few
 * field reads; Helidon's own virtual-thread meters stream JFR events for every thread started, which costs a
 * request-sized share of CPU and heap at this server's request rates, so they stay off.
 *
 * <p>The bean is looked up directly and on the first scrape, not through the platform MBean server: starting that
 * server (JMX) cost a tenth of a second of the proxy's start-up.
 */
final class VirtualThreadGauges {

    private static final String BEAN = "jdk.management.VirtualThreadSchedulerMXBean";

    private VirtualThreadGauges() {
    }

    static void register(PixyMetrics metrics) {
        Class<? extends PlatformManagedObject> type;
        try {
            type = Class.forName(BEAN).asSubclass(PlatformManagedObject.class);
        } catch (ClassNotFoundException | ClassCastException e) {
            return; // JDK 21-23
        }
        LazyValue<Optional<Object>> bean = LazyValue.create(() -> Optional.ofNullable(
                ManagementFactory.getPlatformMXBean(type)));
        gauge(metrics, type, bean, "kafkapixy.vthreads.mounted", "getMountedVirtualThreadCount",
                "Virtual threads mounted on a carrier thread");
        gauge(metrics, type, bean, "kafkapixy.vthreads.queued", "getQueuedVirtualThreadCount",
                "Virtual threads waiting for a carrier thread");
        gauge(metrics, type, bean, "kafkapixy.vthreads.parallelism", "getParallelism",
                "Carrier threads the virtual-thread scheduler aims for");
        gauge(metrics, type, bean, "kafkapixy.vthreads.pool.size", "getPoolSize",
                "Carrier threads the virtual-thread scheduler has");
    }

    private static void gauge(PixyMetrics metrics, Class<?> type, LazyValue<Optional<Object>> bean, String meter,
                              String getter, String description) {
        MethodHandle read;
        try {
            // int or long getters, read as a Number
            read = MethodHandles.publicLookup().unreflect(type.getMethod(getter))
                    .asType(MethodType.methodType(Number.class, Object.class));
        } catch (ReflectiveOperationException notThere) {
            return;
        }
        Supplier<Long> value = () -> bean.get().map(b -> {
            try {
                return ((Number) read.invoke(b)).longValue();
            } catch (Throwable e) {
                return -1L;
            }
        }).orElse(-1L);
        metrics.gauge(meter, description, value);
    }
}
