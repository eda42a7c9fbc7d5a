package io.kafkapixy.server.grpc;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.kafkapixy.errors.PixyException;

/** The gRPC API's one error mapper: error kind → status code, the error text as the status description. */
final class GrpcErrors {

    private GrpcErrors() {
    }

    static Status.Code code(PixyException e) {
        return switch (e.kind()) {
            case UNKNOWN_CLUSTER, BAD_REQUEST, PRODUCE_UNKNOWN_TOPIC -> Status.Code.INVALID_ARGUMENT;
            case MESSAGE_TOO_LARGE, TOO_MANY_REQUESTS, INSTANCE_FULL -> Status.Code.RESOURCE_EXHAUSTED;
            case SHUTTING_DOWN, DISABLED, MIXED_MEMBERSHIP, SHARE_GROUPS_UNAVAILABLE -> Status.Code.UNAVAILABLE;
            case LONG_POLL_TIMEOUT, UNKNOWN_TOPIC, TOPIC_NOT_FOUND, CONSUMERS_NOT_FOUND -> Status.Code.NOT_FOUND;
            case GROUP_ACTIVE -> Status.Code.FAILED_PRECONDITION;
            case FORBIDDEN -> Status.Code.PERMISSION_DENIED;
            // The original sends the non-standard code 500, which grpc-java cannot send; UNKNOWN carries the same text.
            case ACK_FAILED, ADMIN_FAILED -> Status.Code.UNKNOWN;
            case INTERNAL -> Status.Code.INTERNAL;
        };
    }

    static StatusRuntimeException toStatus(PixyException e) {
        return Status.fromCode(code(e)).withDescription(e.getMessage()).asRuntimeException();
    }
}
