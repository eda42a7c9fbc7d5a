package io.kafkapixy.config;

/**
 * Top-level {@code limits} (new in this project): what one client can make this instance hold.
 *
 * @param grpcMaxRequestBytes largest gRPC request message; bigger ones get RESOURCE_EXHAUSTED (the original's grpc-go
 *                            limit, 1 MiB, by default)
 * @param maxHeaderBytes      REST: the request's headers; gRPC: the request's header list; bigger requests get
 *                            431 / are refused by the HTTP/2 layer
 * @param maxParkedRequests   consume requests waiting at once in this instance, over all clusters, groups and both
 *                            APIs; more get 429 / RESOURCE_EXHAUSTED at once, so no client can exhaust memory with
 *                            long polls
 * @param maxRequestLineBytes REST: the request line (method, path and query, version); the original takes about
 *                            1 MiB (Go's default), so a 64 KiB key is a valid produce; longer lines get 414
 * @param maxUnansweredProducesPerStream a streaming Produce call takes no more messages than this before their answers
 *                            (HTTP/2 flow control then holds the client back), so one stream holds at most this many
 *                            messages and answers in memory
 * @param maxStreams          streaming Consume calls open at once in this instance, over all clusters and groups; one
 *                            more ends with RESOURCE_EXHAUSTED at its first request
 * @param maxCreditsPerStream credits a streaming Consume call may have granted and not yet spent: a bound on the
 *                            messages one stream can have sent to it ahead of its reading (more end the stream with
 *                            RESOURCE_EXHAUSTED)
 * @param maxGroups           consumer group members in this instance, over all clusters (one per group with live
 *                            requests here, plus ones still leaving): each holds a {@code KafkaConsumer} with its two
 *                            threads and buffers, so a request that would make one more gets 429 /
 *                            RESOURCE_EXHAUSTED at once; the default fits the Deployment's 256 MiB with parked
 *                            requests on top
 * @param maxParkedRestRequests of the parked requests, how many may be REST's: each holds its connection's thread
 *                            stack and read buffer while it waits (~19 KiB of heap, ten times a gRPC one), so more
 *                            get 429 at once and their connection is closed; below {@code maxRestConnections}, so
 *                            that connections are left to refuse them quickly
 * @param maxRestConnections  REST connections open at once; one more is not accepted until one closes (it waits in
 *                            the listen backlog), as each holds an 8 KiB read buffer and a thread's stack in the
 *                            server whatever its requests, and 10,000 at once would exhaust a 256 MiB process
 */
public record LimitsConfig(int grpcMaxRequestBytes, int maxHeaderBytes, int maxParkedRequests,
                           int maxRequestLineBytes, int maxUnansweredProducesPerStream, int maxStreams,
                           int maxCreditsPerStream, int maxGroups, int maxParkedRestRequests,
                           int maxRestConnections) {

    /**
     * The original's limits where it has them: grpc-go's 1 MiB messages, Go's ~1 MiB request lines. The instance's
     * bounds fit the Deployment's 256 MiB (a 77 MiB heap, see jvm.options): 60 groups at ~0.5 MiB, 3,000 parked gRPC
     * requests at ~2 KiB, 1,000 of them REST at ~19 KiB (1,200 REST connections), and the proxy's own ~20 MiB.
     */
    public static final LimitsConfig DEFAULT = new LimitsConfig(1 << 20, 16 * 1024, 3_000, 1 << 20, 1024, 1000,
            4096, 60, 1_000, 1_200);

    /** These limits with the streams' ones changed. */
    public LimitsConfig withStreams(int unansweredProducesPerStream, int streams, int creditsPerStream) {
        return new LimitsConfig(grpcMaxRequestBytes, maxHeaderBytes, maxParkedRequests, maxRequestLineBytes,
                unansweredProducesPerStream, streams, creditsPerStream, maxGroups, maxParkedRestRequests,
                maxRestConnections);
    }

    /** These limits with {@code max_groups} changed. */
    public LimitsConfig withMaxGroups(int groups) {
        return new LimitsConfig(grpcMaxRequestBytes, maxHeaderBytes, maxParkedRequests, maxRequestLineBytes,
                maxUnansweredProducesPerStream, maxStreams, maxCreditsPerStream, groups, maxParkedRestRequests,
                maxRestConnections);
    }

    /** These limits with {@code max_parked_rest_requests} changed. */
    public LimitsConfig withMaxParkedRestRequests(int requests) {
        return new LimitsConfig(grpcMaxRequestBytes, maxHeaderBytes, maxParkedRequests, maxRequestLineBytes,
                maxUnansweredProducesPerStream, maxStreams, maxCreditsPerStream, maxGroups, requests,
                maxRestConnections);
    }

    /** These limits with {@code max_rest_connections} changed. */
    public LimitsConfig withMaxRestConnections(int connections) {
        return new LimitsConfig(grpcMaxRequestBytes, maxHeaderBytes, maxParkedRequests, maxRequestLineBytes,
                maxUnansweredProducesPerStream, maxStreams, maxCreditsPerStream, maxGroups, maxParkedRestRequests,
                connections);
    }
}
