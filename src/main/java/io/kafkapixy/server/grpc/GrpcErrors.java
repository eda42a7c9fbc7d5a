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
            case MESSAGE_TOO_LARGE -> Status.Code.RESOURCE_EXHAUSTED;
            case SHUTTING_DOWN -> Status.Code.UNAVAILABLE;
            case INTERNAL -> Status.Code.INTERNAL;
        };
    }

    static StatusRuntimeException toStatus(PixyException e) {
        return Status.fromCode(code(e)).withDescription(e.getMessage()).asRuntimeException();
    }
}
