package io.kafkapixy.errors;

/**
 * What went wrong, as far as a client can tell. Each transport maps a kind to its status in exactly one place;
 * the kinds are split wherever the original answers differently on REST and gRPC.
 */
public enum ErrorKind {
    /** A cluster name that is not in {@code proxies}: 400 / INVALID_ARGUMENT. */
    UNKNOWN_CLUSTER,
    /** Malformed or missing parameters: 400 / INVALID_ARGUMENT. */
    BAD_REQUEST,
    /** A known client without the permission the call needs: 403 / PERMISSION_DENIED, before anything is done. */
    FORBIDDEN,
    /** Produce to a topic the cluster does not have: 404 / INVALID_ARGUMENT (the original's pairing). */
    PRODUCE_UNKNOWN_TOPIC,
    /** A message larger than {@code producer.max_message_bytes}: 413 / RESOURCE_EXHAUSTED. */
    MESSAGE_TOO_LARGE,
    /** The proxy is stopping: 503 / UNAVAILABLE. */
    SHUTTING_DOWN,
    /** The consumer is disabled by configuration: 503 / UNAVAILABLE. */
    DISABLED,
    /** A group with ZooKeeper-coordinated members, which a {@code kafka}-mode instance must not join: 503 / UNAVAILABLE. */
    MIXED_MEMBERSHIP,
    /** A share group on brokers that do not serve share groups: 503 / UNAVAILABLE, naming the missing feature. */
    SHARE_GROUPS_UNAVAILABLE,
    /** No message within the long-polling timeout: 408 / NOT_FOUND. */
    LONG_POLL_TIMEOUT,
    /** Too many consume requests queued for a group or group-topic: 429 / RESOURCE_EXHAUSTED. */
    TOO_MANY_REQUESTS,
    /**
     * The whole instance holds what its limits allow ({@code limits.max_parked_requests}, {@code limits.max_groups}):
     * 429 / RESOURCE_EXHAUSTED as {@link #TOO_MANY_REQUESTS}; REST also closes the connection after the answer, so
     * that a refused client holds nothing in a full instance.
     */
    INSTANCE_FULL,
    /** An ack that cannot be applied: 500 / UNKNOWN (the original sends the non-standard gRPC code 500). */
    ACK_FAILED,
    /** Offsets of a topic the cluster does not have: 404 {@code Unknown topic} / NOT_FOUND with the full text. */
    UNKNOWN_TOPIC,
    /** Metadata of a topic the cluster does not have: 500 / NOT_FOUND (the original's pairing). */
    TOPIC_NOT_FOUND,
    /** A consumer group or its topic that list-consumers cannot find: 400 / NOT_FOUND (the original's pairing). */
    CONSUMERS_NOT_FOUND,
    /** Setting offsets of a group with live members, which would overwrite them: 409 / FAILED_PRECONDITION. */
    GROUP_ACTIVE,
    /** An admin call that failed in Kafka: 500 / UNKNOWN (the original sends the non-standard gRPC code 500). */
    ADMIN_FAILED,
    /** Anything else that failed on the way to Kafka: 500 / INTERNAL. */
    INTERNAL
}
