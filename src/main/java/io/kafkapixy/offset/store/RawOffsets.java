package io.kafkapixy.offset.store;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.MetadataRecoveryStrategy;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.NetworkClientUtils;
import org.apache.kafka.clients.BootstrapConfiguration;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.common.utils.internals.LogContext;

/**
 * Commits and fetches consumer-group offsets verbatim, bypassing the client's "offset >= 0" rules, so that the
 * sarama conventions -1 (newest) and -2 (oldest) can be stored and read back the way the Go Kafka-Pixy did.
 *
 * <p>Speaks OffsetCommit / OffsetFetch / FindCoordinator directly over a private {@link NetworkClient} (same
 * plumbing the Java clients use: security settings, ApiVersions negotiation). Commits use generation -1 and
 * member id "" (an "admin"/simple commit), which the broker only accepts while the group has no members.
 * Calls take turns on one lock (NetworkClient is single-threaded); the wait for it counts against the call's
 * timeout, and it is a {@code ReentrantLock}, so waiting virtual threads do not pin their carriers. kafka-clients' own APIs cannot do this: they refuse
 * negative offsets and read committed negatives as "none". This uses kafka-clients internals (NetworkClient and the
 * request classes), pinned with the kafka-clients version; {@code RawOffsetsTest} guards the behaviour.
 *
 * <p>Owned and closed by the {@code Proxy}.
 */
public final class RawOffsets implements AutoCloseable, OffsetStore {

    private static final int MAX_ATTEMPT_BACKOFF_MS = 200;
    /** Errors after which the request is retried, with a fresh coordinator lookup; anything else fails. */
    private static final Set<Errors> RETRIABLE = Set.of(Errors.COORDINATOR_LOAD_IN_PROGRESS,
            Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR, Errors.REQUEST_TIMED_OUT,
            Errors.UNSTABLE_OFFSET_COMMIT);

    private final Time time = Time.SYSTEM;
    private final Metrics metrics;
    private final NetworkClient client;
    private final List<Node> bootstrapNodes;
    private final int requestTimeoutMs;
    private final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();

    /**
     * @param clientConfig at least bootstrap.servers; security.protocol / sasl.* / ssl.* / client.id /
     *                     request.timeout.ms / socket.connection.setup.timeout.ms are honoured as in the Admin client
     */
    public RawOffsets(Map<String, Object> clientConfig) {
        AdminClientConfig config = new AdminClientConfig(clientConfig);
        String clientId = config.getString(CommonClientConfigs.CLIENT_ID_CONFIG);
        if (clientId == null || clientId.isEmpty()) {
            clientId = "kafka-pixy-raw-offsets";
        }
        this.requestTimeoutMs = config.getInt(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG);
        this.bootstrapNodes = new ArrayList<>();
        int id = -1;
        for (var address : ClientUtils.parseAndValidateAddresses(
                config.getList(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG),
                config.getString(CommonClientConfigs.CLIENT_DNS_LOOKUP_CONFIG))) {
            bootstrapNodes.add(new Node(id--, address.getHostString(), address.getPort()));
        }
        LogContext logContext = new LogContext("[RawOffsets clientId=" + clientId + "] ");
        this.metrics = new Metrics(time);
        Selector selector = null;
        try {
            selector = new Selector(config.getLong(CommonClientConfigs.CONNECTIONS_MAX_IDLE_MS_CONFIG), metrics, time,
                    "raw-offsets", ClientUtils.createChannelBuilder(config, time, logContext), logContext);
            this.client = new NetworkClient(selector, new ManualMetadataUpdater(bootstrapNodes), clientId,
                    1,
                    config.getLong(CommonClientConfigs.RECONNECT_BACKOFF_MS_CONFIG),
                    config.getLong(CommonClientConfigs.RECONNECT_BACKOFF_MAX_MS_CONFIG),
                    config.getInt(CommonClientConfigs.SEND_BUFFER_CONFIG),
                    config.getInt(CommonClientConfigs.RECEIVE_BUFFER_CONFIG),
                    requestTimeoutMs,
                    config.getLong(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG),
                    config.getLong(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG),
                    time,
                    true,                                // negotiate versions with ApiVersions
                    new ApiVersions(),
                    logContext,
                    MetadataRecoveryStrategy.NONE,
                    BootstrapConfiguration.DISABLED,
                    false);
        } catch (RuntimeException e) {
            Utils.closeQuietly(selector, "selector");
            Utils.closeQuietly(metrics, "metrics");
            throw e;
        }
    }

    /** Stores the offsets verbatim (negative values included) for a group that has no active members. */
    public void commit(String group, Map<TopicPartition, Committed> offsets, long timeoutMs) {
        long deadline = time.milliseconds() + timeoutMs;
        lockUntil(deadline);
        try {
            commitLocked(group, offsets, deadline);
        } finally {
            lock.unlock();
        }
    }

    private void commitLocked(String group, Map<TopicPartition, Committed> offsets, long deadline) {
        Map<String, OffsetCommitRequestData.OffsetCommitRequestTopic> topics = new LinkedHashMap<>();
        offsets.forEach((tp, c) -> topics.computeIfAbsent(tp.topic(),
                        t -> new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(t))
                .partitions().add(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                        .setPartitionIndex(tp.partition())
                        .setCommittedOffset(c.offset())
                        .setCommittedMetadata(c.metadata())));
        OffsetCommitRequestData data = new OffsetCommitRequestData()
                .setGroupId(group)
                .setGenerationIdOrMemberEpoch(-1)          // "no generation": admin/simple commit
                .setMemberId("")
                .setTopics(new ArrayList<>(topics.values()));
        for (int attempt = 0; ; attempt++) {
            Node coordinator = coordinator(group, deadline);
            OffsetCommitResponseData resp;
            try {
                resp = ((OffsetCommitResponse) send(coordinator,
                        OffsetCommitRequest.Builder.forTopicNames(data), deadline)).data();
            } catch (RawOffsetsException connectionLost) {
                // the same offsets again: a commit is idempotent
                backoff(Errors.NETWORK_EXCEPTION, attempt, deadline);
                continue;
            }
            Errors retriable = null;
            List<String> failures = new ArrayList<>();
            Set<Errors> failed = new java.util.HashSet<>();
            for (var t : resp.topics()) {
                for (var p : t.partitions()) {
                    Errors e = Errors.forCode(p.errorCode());
                    if (e == Errors.NONE) continue;
                    if (RETRIABLE.contains(e)) {
                        retriable = e;
                    } else {
                        failures.add(t.name() + "-" + p.partitionIndex() + ": " + e.name());
                        failed.add(e);
                    }
                }
            }
            if (!failures.isEmpty()) {
                throw new RawOffsetsException("OffsetCommit for group " + group + " failed: " + failures, failed);
            }
            if (retriable == null) return;
            backoff(retriable, attempt, deadline);
        }
    }

    /** Returns the committed offset of each partition exactly as stored; -1/"" when nothing is committed. */
    public Map<TopicPartition, Committed> fetch(String group, Set<TopicPartition> partitions, long timeoutMs) {
        long deadline = time.milliseconds() + timeoutMs;
        lockUntil(deadline);
        try {
            return fetchLocked(group, partitions, deadline);
        } finally {
            lock.unlock();
        }
    }

    private void lockUntil(long deadline) {
        try {
            if (!lock.tryLock(Math.max(0, deadline - time.milliseconds()), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                throw new TimeoutException("timed out waiting for earlier offset requests");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TimeoutException("interrupted waiting for earlier offset requests");
        }
    }

    private Map<TopicPartition, Committed> fetchLocked(String group, Set<TopicPartition> partitions,
                                                       long deadline) {
        Map<String, List<Integer>> byTopic = new TreeMap<>();
        partitions.forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
        List<OffsetFetchRequestData.OffsetFetchRequestTopics> topics = new ArrayList<>();
        byTopic.forEach((t, ps) -> topics.add(
                new OffsetFetchRequestData.OffsetFetchRequestTopics().setName(t).setPartitionIndexes(ps)));
        OffsetFetchRequestData data = new OffsetFetchRequestData().setGroups(List.of(
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(group).setTopics(topics)));
        for (int attempt = 0; ; attempt++) {
            Node coordinator = coordinator(group, deadline);
            OffsetFetchResponse resp;
            try {
                resp = (OffsetFetchResponse) send(coordinator,
                    OffsetFetchRequest.Builder.forTopicNames(data, false), deadline);
            } catch (RawOffsetsException connectionLost) {
                backoff(Errors.NETWORK_EXCEPTION, attempt, deadline);
                continue;
            }
            // group(...) hides the v0-v7 single-group layout vs the v8+ batched layout
            OffsetFetchResponseData.OffsetFetchResponseGroup g = resp.group(group);
            Errors error = Errors.forCode(g.errorCode());
            Map<TopicPartition, Committed> out = new HashMap<>();
            List<String> failures = new ArrayList<>();
            if (error == Errors.NONE) {
                for (var t : g.topics()) {
                    for (var p : t.partitions()) {
                        Errors e = Errors.forCode(p.errorCode());
                        if (e == Errors.NONE) {
                            out.put(new TopicPartition(t.name(), p.partitionIndex()),
                                    new Committed(p.committedOffset(), p.metadata() == null ? "" : p.metadata()));
                        } else if (RETRIABLE.contains(e)) {
                            error = e;                      // e.g. UNSTABLE_OFFSET_COMMIT
                        } else {
                            failures.add(t.name() + "-" + p.partitionIndex() + ": " + e.name());
                        }
                    }
                }
            }
            if (!failures.isEmpty()) {
                throw new RawOffsetsException("OffsetFetch for group " + group + " failed: " + failures);
            }
            if (error == Errors.NONE) return out;
            if (!RETRIABLE.contains(error)) {
                throw new RawOffsetsException("OffsetFetch for group " + group + " failed: " + error.name());
            }
            backoff(error, attempt, deadline);
        }
    }

    @Override
    public Map<TopicPartition, Committed> fetch(String group, java.util.Collection<TopicPartition> partitions) {
        Map<TopicPartition, Committed> fetched = fetch(group, Set.copyOf(partitions), requestTimeoutMs);
        Map<TopicPartition, Committed> result = new HashMap<>();
        for (TopicPartition tp : partitions) {
            result.put(tp, fetched.getOrDefault(tp, Committed.NONE));
        }
        return result;
    }

    @Override
    public void commit(String group, Map<TopicPartition, Committed> offsets) {
        commit(group, offsets, requestTimeoutMs);
    }

    private Node coordinator(String group, long deadline) {
        for (int attempt = 0; ; attempt++) {
            // the builder moves the key into the v0-v3 "Key" field when the broker is old
            FindCoordinatorRequestData data = new FindCoordinatorRequestData()
                    .setKeyType(FindCoordinatorRequest.CoordinatorType.GROUP.id())
                    .setCoordinatorKeys(new ArrayList<>(List.of(group)));
            Node any = bootstrapNodes.get(attempt % bootstrapNodes.size());
            FindCoordinatorResponse resp;
            try {
                resp = (FindCoordinatorResponse) send(any, new FindCoordinatorRequest.Builder(data), deadline);
            } catch (RawOffsetsException e) {
                if (time.milliseconds() + MAX_ATTEMPT_BACKOFF_MS >= deadline) throw e;
                time.sleep(MAX_ATTEMPT_BACKOFF_MS);
                continue;
            }
            Errors error;
            Node node;
            if (resp.data().coordinators().isEmpty()) {                // v0-v3 layout
                error = resp.error();
                node = resp.node();
            } else {
                FindCoordinatorResponseData.Coordinator c = resp.data().coordinators().get(0);
                error = Errors.forCode(c.errorCode());
                node = new Node(c.nodeId(), c.host(), c.port());
            }
            if (error == Errors.NONE) return node;
            if (!RETRIABLE.contains(error)) {
                throw new RawOffsetsException("FindCoordinator for group " + group + " failed: " + error.name());
            }
            backoff(error, attempt, deadline);
        }
    }

    private AbstractResponse send(Node node, AbstractRequest.Builder<?> request, long deadline) {
        try {
            long now = time.milliseconds();
            if (!NetworkClientUtils.awaitReady(client, node, time, Math.max(0, deadline - now))) {
                throw new RawOffsetsException("no connection to " + node + " before the deadline");
            }
            now = time.milliseconds();
            int timeout = (int) Math.max(1, Math.min(requestTimeoutMs, deadline - now));
            ClientRequest cr = client.newClientRequest(node.idString(), request, now, true, timeout, null);
            ClientResponse response = NetworkClientUtils.sendAndReceive(client, cr, time);
            return response.responseBody();
        } catch (IOException e) {
            throw new RawOffsetsException("request to " + node + " failed: " + e.getMessage(), e);
        }
    }

    private void backoff(Errors error, int attempt, long deadline) {
        long sleep = Math.min(MAX_ATTEMPT_BACKOFF_MS, 20L << Math.min(attempt, 4));
        if (time.milliseconds() + sleep >= deadline) {
            throw new TimeoutException("gave up after " + (attempt + 1) + " attempts, last error " + error.name());
        }
        time.sleep(sleep);
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closeLocked();
        } finally {
            lock.unlock();
        }
    }

    private void closeLocked() {
        Utils.closeQuietly(client, "network client");
        Utils.closeQuietly(metrics, "metrics");
    }

    /** A non-retriable failure of a raw offsets request. */
    public static final class RawOffsetsException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final Set<Errors> errors;

        RawOffsetsException(String message) {
            this(message, Set.of());
        }

        RawOffsetsException(String message, Set<Errors> errors) {
            super(message);
            this.errors = Set.copyOf(errors);
        }

        RawOffsetsException(String message, Throwable cause) {
            super(message, cause);
            this.errors = Set.of();
        }

        /** The per-partition errors the broker answered, if it answered. */
        public Set<Errors> errors() {
            return errors;
        }
    }
}
