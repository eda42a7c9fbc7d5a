package io.kafkapixy.proxy;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.kafkapixy.admin.PixyAdmin;
import io.kafkapixy.offset.store.RawOffsets;
import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.consumer.InstanceLimits;
import io.kafkapixy.config.ProxyConfig;
import io.kafkapixy.consumer.Membership;
import io.kafkapixy.zookeeper.MixedMembershipGuard;
import io.kafkapixy.zookeeper.ZooKeeperMembership;
import io.kafkapixy.consumer.Consumers;
import io.kafkapixy.consumer.DeadLetters;
import io.kafkapixy.consumer.share.ShareGroupSetup;
import io.kafkapixy.consumer.GroupGuard;
import io.kafkapixy.producer.PixyProducer;
import io.kafkapixy.tracing.Tracing;
import io.kafkapixy.producer.ProducerSettings;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.errors.AuthenticationException;

/**
 * Everything this instance does with one Kafka cluster: its producer, its consumer groups and its admin client.
 * Created and closed by {@link ProxySet}. Closing stops the consumers (committing acked offsets, leaving groups)
 * and the producer (draining accepted messages) at the same time, then the admin client.
 */
public final class Proxy implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Proxy.class.getName());

    private final String name;
    private final ProxyConfig config;
    private final Admin admin;
    private final PixyProducer producer;
    private final Consumers consumers;
    private final RawOffsets rawOffsets;
    private final RawOffsets consumerOffsets;
    /** Only with {@code membership: zookeeper}. */
    private final ZooKeeperMembership zooKeeper;
    /** Only with {@code membership: kafka} and {@code zoo_keeper.seed_peers} configured. */
    private final MixedMembershipGuard mixedMembershipGuard;
    private final PixyAdmin pixyAdmin;

    private Proxy(String name, ProxyConfig config, Admin admin, PixyProducer producer, Consumers consumers,
                  RawOffsets rawOffsets, RawOffsets consumerOffsets, ZooKeeperMembership zooKeeper,
                  MixedMembershipGuard mixedMembershipGuard) {
        this.zooKeeper = zooKeeper;
        this.mixedMembershipGuard = mixedMembershipGuard;
        this.name = name;
        this.config = config;
        this.admin = admin;
        this.producer = producer;
        this.consumers = consumers;
        this.rawOffsets = rawOffsets;
        this.consumerOffsets = consumerOffsets;
        this.pixyAdmin = PixyAdmin.create(admin, rawOffsets, adminTimeout(config),
                java.util.Optional.ofNullable(zooKeeper), config.consumer()::isShareGroup);
    }

    /**
     * Connects to the cluster. Fails, as the original does, when none of the seed brokers answers within
     * {@code net.dial_timeout}.
     */
    static Proxy start(String name, ProxyConfig config, ClusterMetrics metrics, InstanceLimits limits,
                       Tracing tracing) {
        Map<String, Object> common = KafkaSettings.common(config);
        Admin admin = Admin.create(common);
        try {
            awaitCluster(name, admin, adminTimeout(config));
            Map<String, Object> producerSettings = new HashMap<>(common);
            producerSettings.putAll(ProducerSettings.of(config.producer(), config.net()));
            var kafkaProducer = new KafkaProducer<byte[], byte[]>(producerSettings);
            PixyProducer producer = PixyProducer.create(kafkaProducer, admin, config.producer(), adminTimeout(config),
                    metrics.producer(), tracing);
            // One for the admin API, one for the consumers' partition set-up, so neither waits for the other.
            RawOffsets rawOffsets = new RawOffsets(common);
            RawOffsets consumerOffsets = new RawOffsets(common);
            ZooKeeperMembership zooKeeper = null;
            MixedMembershipGuard guard = null;
            Membership.Factory memberships = Consumers.kafkaMembership();
            if (config.consumer().membership() == ConsumerConfig.Membership.ZOOKEEPER) {
                zooKeeper = ZooKeeperMembership.connect(config.zooKeeper());
                memberships = zooKeeper.memberships(config.clientId(), config.consumer().retryBackoff(),
                        Clock.systemUTC());
            } else if (config.zooKeeper().named()) {
                guard = MixedMembershipGuard.connect(config.zooKeeper());
            }
            ShareGroupSetup shareSetup = config.consumer().usesShareGroups() && !config.consumer().disabled()
                    ? ShareGroupConfigs.check(name, admin, config.consumer(), adminTimeout(config))
                    : ShareGroupSetup.NONE;
            Consumers consumers = new Consumers(config.consumer(), common, consumerOffsets, memberships,
                    guard == null ? GroupGuard.NONE : guard, shareSetup, metrics.consumers(), limits,
                    Clock.systemUTC(), deadLetters(config, producer), tracing);
            return new Proxy(name, config, admin, producer, consumers, rawOffsets, consumerOffsets, zooKeeper,
                    guard);
        } catch (RuntimeException e) {
            admin.close(Duration.ZERO);
            throw e;
        }
    }

    private static DeadLetters deadLetters(ProxyConfig config, PixyProducer producer) {
        String template = config.consumer().deadLetterTopic();
        return template.isEmpty() ? DeadLetters.NONE : new ProducedDeadLetters(template, producer);
    }

    /** True when a broker of this cluster answers within {@code timeout}. */
    public boolean brokersReachable(Duration timeout) {
        try {
            // the call's own timeout too, so calls made during an outage do not pile up in the admin client
            var options = new DescribeClusterOptions().timeoutMs((int) timeout.toMillis());
            return !admin.describeCluster(options).nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS).isEmpty();
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void awaitCluster(String name, Admin admin, Duration timeout) {
        try {
            admin.describeCluster().nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AuthenticationException auth) {
                // SASL credentials or TLS trust: say so, a retry will not help
                throw new IllegalStateException("failed to spawn proxy, name=" + name + ": failed to create Kafka "
                        + "client: kafka: authentication failed: " + auth.getMessage(), e);
            }
            throw unreachable(name, e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw unreachable(name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting to Kafka", e);
        }
    }

    private static IllegalStateException unreachable(String name, Exception cause) {
        return new IllegalStateException("failed to spawn proxy, name=" + name + ": failed to create Kafka client: "
                + "kafka: client has run out of available brokers to talk to (Is your cluster reachable?)", cause);
    }

    private static Duration adminTimeout(ProxyConfig config) {
        Duration dial = config.net().dialTimeout();
        return dial.isZero() || dial.isNegative() ? Duration.ofSeconds(30) : dial;
    }

    public String name() {
        return name;
    }

    public ProxyConfig config() {
        return config;
    }

    public PixyProducer producer() {
        return producer;
    }

    public Consumers consumers() {
        return consumers;
    }

    private void stopConsumers() {
        try {
            consumers.close();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Failed to stop consumers of " + name, e);
        }
    }

    public PixyAdmin admin() {
        return pixyAdmin;
    }

    @Override
    public void close() {
        // The producer drains while the consumers do, so the drains do not add up; with a dead-letter topic the
        // consumers write to it until they have left, and the producer stops after them.
        boolean lettering = !config.consumer().deadLetterTopic().isEmpty();
        if (lettering) {
            stopConsumers();
        }
        Thread producerStop = Thread.ofVirtual().name("stop-producer-" + name).start(() -> {
            try {
                producer.close();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Failed to stop producer of " + name, e);
            }
        });
        if (!lettering) {
            stopConsumers();
        }
        try {
            producerStop.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
        if (mixedMembershipGuard != null) {
            mixedMembershipGuard.close();
        }
        rawOffsets.close();
        consumerOffsets.close();
        admin.close(Duration.ofSeconds(5));
    }
}
