package io.kafkapixy.config;

/**
 * Top-level {@code limits} (new in this project): what one client can make this instance hold.
 *
 * @param grpcMaxRequestBytes largest gRPC request message; bigger ones get RESOURCE_EXHAUSTED (the original's grpc-go
 *                            limit, 1 MiB, by default)
 * @param maxHeaderBytes      REST: request line and headers together; gRPC: the request's header list; bigger
 *                            requests get 431 / are refused by the HTTP/2 layer
 * @param maxParkedRequests   consume requests waiting at once in this instance, over all clusters, groups and both
 *                            APIs; more get 429 / RESOURCE_EXHAUSTED at once, so no client can exhaust memory with
 *                            long polls
 */
public record LimitsConfig(int grpcMaxRequestBytes, int maxHeaderBytes, int maxParkedRequests) {

    public static final LimitsConfig DEFAULT = new LimitsConfig(1 << 20, 16 * 1024, 20_000);
}
