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
    /** Produce to a topic the cluster does not have: 404 / INVALID_ARGUMENT (the original's pairing). */
    PRODUCE_UNKNOWN_TOPIC,
    /** A message larger than {@code producer.max_message_bytes}: 413 / RESOURCE_EXHAUSTED. */
    MESSAGE_TOO_LARGE,
    /** The proxy is stopping: 503 / UNAVAILABLE. */
    SHUTTING_DOWN,
    /** Anything else that failed on the way to Kafka: 500 / INTERNAL. */
    INTERNAL
}
