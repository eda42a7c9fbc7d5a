package io.kafkapixy.zookeeper;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.kafkapixy.config.ZooKeeperConfig;
import io.kafkapixy.consumer.GroupGuard;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEventType;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;

/**
 * Keeps a {@code membership: kafka} instance out of groups whose members coordinate through ZooKeeper (the original, or
 * this project in {@code zookeeper} mode): neither kind sees the other, so both would consume every partition. Used
 * when the configuration names {@code zoo_keeper.seed_peers}; a group with children under
 * {@code /consumers/<group>/ids} is refused with 503 / {@code UNAVAILABLE} and an error in the log. Checked when this
 * instance makes a new member of a group, not afterwards.
 *
 * <p>The guard protects migrations; it never makes ZooKeeper a dependency of Kafka mode, nor delays a join for it. A
 * check asks ZooKeeper only while a connection is up, and waits at most {@link #CHECK_WAIT}; otherwise the group is
 * served unchecked. Whether ZooKeeper answers is found out apart from the checks: once at start (so a reachable
 * ZooKeeper guards the first groups), then in the background, backing off from {@link #FIRST_RETRY} to
 * {@link #LAST_RETRY}. Each try first opens a plain TCP connection to the peers, and only a peer that accepts one gets a
 * ZooKeeper client, so a ZooKeeper that is gone costs one WARN when it stops answering and one INFO when it answers
 * again, not the client library's reconnect attempts and stack traces every second.
 */
public final class MixedMembershipGuard implements GroupGuard, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(MixedMembershipGuard.class.getName());
    /** How long a peer has to accept a TCP connection. */
    static final Duration DIAL_WAIT = Duration.ofSeconds(1);
    /** How long a ZooKeeper client has to connect once a peer accepted a TCP connection. */
    static final Duration CONNECT_WAIT = Duration.ofSeconds(5);
    /** How long a check waits for ZooKeeper's answer before the group is served unchecked. */
    static final Duration CHECK_WAIT = Duration.ofMillis(500);
    static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    static final Duration LAST_RETRY = Duration.ofMinutes(1);

    private final ZooKeeperConfig config;
    private final ZkPaths paths;
    private final ScheduledExecutorService prober = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "zookeeper-guard");
        t.setDaemon(true);
        return t;
    });
    /** A connected client; null while ZooKeeper does not answer. */
    private volatile CuratorFramework zk;
    // confined to the prober's thread
    private Duration backoff = FIRST_RETRY;
    private boolean saidUnreachable;
    private boolean closed;

    private MixedMembershipGuard(ZooKeeperConfig config) {
        this.config = config;
        this.paths = new ZkPaths(config.chroot());
    }

    /**
     * Finds out whether ZooKeeper answers, waiting for that (at most {@link #DIAL_WAIT} per peer, and
     * {@link #CONNECT_WAIT} when one accepts), then keeps finding out in the background.
     */
    public static MixedMembershipGuard connect(ZooKeeperConfig config) {
        MixedMembershipGuard guard = new MixedMembershipGuard(config);
        try {
            guard.prober.submit(guard::probe).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            LOG.log(Level.WARNING, "ZooKeeper guard: " + e.getCause());
        }
        return guard;
    }

    /** Whether a ZooKeeper connection is up now (checks ask ZooKeeper only then). */
    public boolean connected() {
        return zk != null;
    }

    @Override
    public void check(String group) {
        CuratorFramework c = zk;
        if (c == null) {
            // said once, by the prober: groups are served unchecked while ZooKeeper does not answer
            return;
        }
        List<String> members;
        try {
            members = children(c, paths.ids(group));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (Exception e) {
            LOG.log(Level.DEBUG, "ZooKeeper guard: group {0} served unchecked: {1}", group, e.toString());
            return;
        }
        if (members.isEmpty()) {
            return;
        }
        String text = "consumer group " + group + " has members that coordinate through ZooKeeper "
                      + members.stream().sorted().toList() + "; this instance uses membership: kafka and does not "
                      + "join it, or both kinds would consume every partition: move the whole group to one mode";
        LOG.log(Level.ERROR, text);
        throw new PixyException(ErrorKind.MIXED_MEMBERSHIP, text);
    }

    /** The children of {@code path}, none when it does not exist; waits at most {@link #CHECK_WAIT}. */
    private static List<String> children(CuratorFramework c, String path) throws Exception {
        CompletableFuture<List<String>> answer = new CompletableFuture<>();
        c.getChildren().inBackground((client, event) -> {
            if (event.getType() != CuratorEventType.CHILDREN) {
                return;
            }
            if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
                answer.complete(List.of());
            } else if (event.getResultCode() != KeeperException.Code.OK.intValue()) {
                answer.completeExceptionally(KeeperException.create(KeeperException.Code.get(event.getResultCode())));
            } else {
                answer.complete(event.getChildren());
            }
        }).forPath(path);
        try {
            return answer.get(CHECK_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IOException("no answer within " + CHECK_WAIT.toMillis() + " ms");
        }
    }

    /** On the prober's thread: tries to connect; on success keeps the client, else tries again later. */
    private void probe() {
        if (closed || zk != null) {
            return;
        }
        String why = dial();
        if (why == null) {
            CuratorFramework c = ZooKeeperMembership.startClient(config, CONNECT_WAIT, new RetryOneTime(100));
            boolean up;
            try {
                up = c.blockUntilConnected((int) CONNECT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                c.close();
                Thread.currentThread().interrupt();
                return;
            }
            if (up) {
                c.getConnectionStateListenable().addListener((client, state) -> {
                    if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
                        prober.execute(() -> lost(client, state));
                    }
                }, prober);
                zk = c;
                backoff = FIRST_RETRY;
                if (saidUnreachable) {
                    saidUnreachable = false;
                    LOG.log(Level.INFO, "ZooKeeper (zoo_keeper.seed_peers) answers again: new groups are checked "
                            + "for members of the ZooKeeper kind");
                }
                return;
            }
            c.close();
            why = "no ZooKeeper session within " + CONNECT_WAIT.toSeconds() + " s";
        }
        unreachable(why);
    }

    /** The connection of {@code client} was suspended or lost: checks stop asking it, and a new one is sought. */
    private void lost(CuratorFramework client, ConnectionState state) {
        if (zk != client) {
            return;
        }
        zk = null;
        client.close();
        unreachable("connection " + state.name().toLowerCase());
    }

    private void unreachable(String why) {
        if (closed) {
            return;
        }
        if (!saidUnreachable) {
            saidUnreachable = true;
            LOG.log(Level.WARNING, "ZooKeeper (zoo_keeper.seed_peers {0}) does not answer ({1}): new groups are served "
                    + "without checking them for members of the ZooKeeper kind until it does; asked again from {2} s "
                    + "to every {3} s, and said again only once it has answered", String.join(",",
                    config.seedPeers()), why, FIRST_RETRY.toSeconds(), LAST_RETRY.toSeconds());
        }
        prober.schedule(this::probe, backoff.toMillis(), TimeUnit.MILLISECONDS);
        backoff = backoff.multipliedBy(2).compareTo(LAST_RETRY) > 0 ? LAST_RETRY : backoff.multipliedBy(2);
    }

    /** Null when a peer accepts a TCP connection within {@link #DIAL_WAIT}; else why none did. */
    private String dial() {
        String why = "no peers";
        for (String peer : config.seedPeers()) {
            int colon = peer.lastIndexOf(':');
            String host = colon < 0 ? peer : peer.substring(0, colon);
            int port = colon < 0 ? 2181 : Integer.parseInt(peer.substring(colon + 1));
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), (int) DIAL_WAIT.toMillis());
                return null;
            } catch (IOException | RuntimeException e) {
                why = peer + ": " + e.getMessage();
            }
        }
        return why;
    }

    @Override
    public void close() {
        try {
            prober.submit(() -> {
                closed = true;
                CuratorFramework c = zk;
                zk = null;
                if (c != null) {
                    c.close();
                }
            }).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.log(Level.DEBUG, "ZooKeeper guard: " + e);
        }
        prober.shutdownNow();
    }
}
