package io.kafkapixy.config;

import java.util.List;

import static io.kafkapixy.config.ConfigKey.Bound.atLeast;
import static io.kafkapixy.config.ConfigKey.Type.INT;

/**
 * Top-level {@code limits} (new in this project): what one client can make this instance hold. The defaults are the
 * original's limits where it has them (grpc-go's 1 MiB messages, Go's ~1 MiB request lines); the instance's bounds fit
 * the Deployment's 256 MiB (a 77 MiB heap, see jvm.options): 60 groups at ~0.5 MiB, 3,000 parked gRPC requests at
 * ~2 KiB, 1,000 of them REST at ~19 KiB (1,200 REST connections), and the proxy's own ~20 MiB.
 */
public final class LimitsConfig {

    public static final ConfigKey<Integer> GRPC_MAX_REQUEST_BYTES = ConfigKey.of(
            "limits.grpc_max_request_bytes", INT, 1 << 20, atLeast(1024),
            "largest gRPC request message (`RESOURCE_EXHAUSTED` above it), the original's limit");
    public static final ConfigKey<Integer> MAX_HEADER_BYTES = ConfigKey.of(
            "limits.max_header_bytes", INT, 16 * 1024, atLeast(1024),
            "REST request headers (431 above it); gRPC header list");
    public static final ConfigKey<Integer> MAX_PARKED_REQUESTS = ConfigKey.of(
            "limits.max_parked_requests", INT, 3_000, atLeast(1),
            "consume requests waiting at once in the instance, all clusters and both APIs (429 / "
            + "`RESOURCE_EXHAUSTED` beyond, naming the key, and REST closes the connection); a gRPC one "
            + "holds ~2 KiB of heap, a REST one ~19 KiB (bounded by `max_rest_connections`)");
    public static final ConfigKey<Integer> MAX_REQUEST_LINE_BYTES = ConfigKey.of(
            "limits.max_request_line_bytes", INT, 1 << 20, atLeast(1024),
            "REST request line: method, path with query, version (414 above it); about Go's limit, so "
            + "a 64 KiB `key` is a valid produce as in the original");
    public static final ConfigKey<Integer> MAX_UNANSWERED_PRODUCES_PER_STREAM = ConfigKey.of(
            "limits.max_unanswered_produces_per_stream", INT, 1024, atLeast(1),
            "messages a streaming `Produce` call takes before their answers (see \"Streaming gRPC\"); "
            + "HTTP/2 flow control holds the client back beyond it");
    public static final ConfigKey<Integer> MAX_STREAMS = ConfigKey.of(
            "limits.max_streams", INT, 1000, atLeast(1),
            "streaming `Consume` calls open at once in this instance, over all clusters and groups; "
            + "one more ends with `RESOURCE_EXHAUSTED` at its first request");
    public static final ConfigKey<Integer> MAX_CREDITS_PER_STREAM = ConfigKey.of(
            "limits.max_credits_per_stream", INT, 4096, atLeast(1),
            "credits a streaming `Consume` call may have granted and not yet spent (the messages it "
            + "can be sent ahead of its reading); more end the stream with `RESOURCE_EXHAUSTED`");
    public static final ConfigKey<Integer> MAX_GROUPS = ConfigKey.of(
            "limits.max_groups", INT, 60, atLeast(1),
            "consumer groups served at once by the instance, all clusters (each a `KafkaConsumer` "
            + "with two threads, four sockets and ~0.5 MiB); a new group takes the place of a classic group that "
            + "serves nobody (nothing parked or out, quiet for 250 ms), else gets 429 / `RESOURCE_EXHAUSTED` naming "
            + "the key and joins nothing");
    public static final ConfigKey<Integer> MAX_PARKED_REST_REQUESTS = ConfigKey.of(
            "limits.max_parked_rest_requests", INT, 1_000, atLeast(1),
            "of the parked requests, how many may be REST's (each holds its connection's thread stack "
            + "and read buffer, ~19 KiB, ten times a gRPC one); one more gets 429 naming the key at "
            + "once and its connection is closed");
    public static final ConfigKey<Integer> MAX_REST_CONNECTIONS = ConfigKey.of(
            "limits.max_rest_connections", INT, 1_200, atLeast(1),
            "REST connections open at once; one more is not accepted until another closes (it waits "
            + "in the listen backlog), since each costs 10–19 KiB of heap in the server whatever its "
            + "requests");

    /** The section's keys, in the order the config summary and the README list them. */
    public static final List<ConfigKey<?>> KEYS = List.of(GRPC_MAX_REQUEST_BYTES, MAX_HEADER_BYTES,
            MAX_PARKED_REQUESTS, MAX_REQUEST_LINE_BYTES, MAX_UNANSWERED_PRODUCES_PER_STREAM, MAX_STREAMS,
            MAX_CREDITS_PER_STREAM, MAX_GROUPS, MAX_PARKED_REST_REQUESTS, MAX_REST_CONNECTIONS);

    public static final LimitsConfig DEFAULT = new LimitsConfig(Settings.defaults(KEYS));

    private final Settings values;

    private LimitsConfig(Settings values) {
        this.values = values;
    }

    /** These limits with {@code key} set to {@code value}. */
    public <T> LimitsConfig with(ConfigKey<T> key, T value) {
        return new LimitsConfig(values.with(key, value));
    }

    /** These limits with every key the YAML section names read from it. */
    LimitsConfig read(YamlSection section) {
        return new LimitsConfig(values.read(section));
    }

    Settings settings() {
        return values;
    }

    /** Largest gRPC request message; bigger ones get RESOURCE_EXHAUSTED. */
    public int grpcMaxRequestBytes() {
        return values.get(GRPC_MAX_REQUEST_BYTES);
    }

    /** REST: the request's headers; gRPC: the request's header list; bigger requests get 431 / are refused. */
    public int maxHeaderBytes() {
        return values.get(MAX_HEADER_BYTES);
    }

    /** Consume requests waiting at once in this instance, over all clusters, groups and both APIs. */
    public int maxParkedRequests() {
        return values.get(MAX_PARKED_REQUESTS);
    }

    /** REST: the request line (method, path and query, version); longer lines get 414. */
    public int maxRequestLineBytes() {
        return values.get(MAX_REQUEST_LINE_BYTES);
    }

    /** Messages a streaming Produce call takes before their answers; HTTP/2 flow control then holds it back. */
    public int maxUnansweredProducesPerStream() {
        return values.get(MAX_UNANSWERED_PRODUCES_PER_STREAM);
    }

    /** Streaming Consume calls open at once in this instance. */
    public int maxStreams() {
        return values.get(MAX_STREAMS);
    }

    /** Credits a streaming Consume call may have granted and not yet spent. */
    public int maxCreditsPerStream() {
        return values.get(MAX_CREDITS_PER_STREAM);
    }

    /** Consumer group members in this instance, over all clusters. */
    public int maxGroups() {
        return values.get(MAX_GROUPS);
    }

    /** Of the parked requests, how many may be REST's (each holds a connection's thread stack and buffer). */
    public int maxParkedRestRequests() {
        return values.get(MAX_PARKED_REST_REQUESTS);
    }

    /** REST connections open at once; one more waits in the listen backlog until one closes. */
    public int maxRestConnections() {
        return values.get(MAX_REST_CONNECTIONS);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LimitsConfig l && values.equals(l.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return "LimitsConfig" + values;
    }
}
