package io.kafkapixy.server.grpc;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/**
 * Cuts status descriptions that would not fit a client's limit on response metadata. An error text can carry request
 * data (Kafka's "topic name is illegal" quotes the whole name, up to the 1 MiB request limit), and clients refuse
 * trailers over their limit (grpc-java's 8 KiB by default) with an error of their own instead of the status.
 */
final class BoundedStatusDescriptions implements ServerInterceptor {

    /** grpc-message percent-encodes anything but printable ASCII: 3 bytes per UTF-8 byte, up to 4 per char. */
    static final int MAX_ENCODED_BYTES = 3000;

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                       ServerCallHandler<Q, R> next) {
        return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                super.close(bounded(status), trailers);
            }
        }, headers);
    }

    static Status bounded(Status status) {
        String d = status.getDescription();
        if (d == null) {
            return status;
        }
        int encoded = 0;
        for (int i = 0; i < d.length(); i++) {
            char c = d.charAt(i);
            encoded += c >= 0x20 && c < 0x7F && c != '%' ? 1 : 12;
            if (encoded > MAX_ENCODED_BYTES) {
                return status.withDescription(d.substring(0, i) + "...");
            }
        }
        return status;
    }
}
