package io.kafkapixy.server.grpc;

import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import com.google.protobuf.MessageLite;

/**
 * The original's gRPC server refuses requests over 1 MiB with RESOURCE_EXHAUSTED (grpc-go's
 * {@code MaxRecvMsgSize}); Helidon's own read limit answers INTERNAL, so the limit is checked here, on every call.
 */
public final class MaxMessageSize implements ServerInterceptor {

    private final int maxBytes;

    public MaxMessageSize(int maxBytes) {
        this.maxBytes = maxBytes;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                       ServerCallHandler<Q, R> next) {
        ServerCall.Listener<Q> delegate = next.startCall(call, headers);
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(delegate) {
            private boolean refused;

            @Override
            public void onMessage(Q message) {
                if (refused) {
                    return;
                }
                int size = switch (message) {
                    case byte[] b -> b.length;
                    case MessageLite m -> m.getSerializedSize();
                    default -> 0;
                };
                if (size > maxBytes) {
                    refused = true;
                    call.close(Status.RESOURCE_EXHAUSTED.withDescription(
                            "grpc: received message larger than max (" + size + " vs. " + maxBytes + ")"),
                            new Metadata());
                    return;
                }
                super.onMessage(message);
            }

            @Override
            public void onHalfClose() {
                if (!refused) {
                    super.onHalfClose();
                }
            }
        };
    }
}
