package io.kafkapixy.server.grpc;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.kafkapixy.ops.PixyMetrics;

/**
 * Counts every gRPC call by method and status when it closes and, with the access log on, logs one line for it.
 */
public final class GrpcRequestMetrics implements ServerInterceptor {

    private static final System.Logger ACCESS = System.getLogger("io.kafkapixy.access");

    private final PixyMetrics metrics;
    private final boolean accessLog;

    public GrpcRequestMetrics(PixyMetrics metrics, boolean accessLog) {
        this.metrics = metrics;
        this.accessLog = accessLog;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                       ServerCallHandler<Q, R> next) {
        long start = System.nanoTime();
        String method = call.getMethodDescriptor().getBareMethodName();
        String fullName = call.getMethodDescriptor().getFullMethodName();
        ServerCall<Q, R> counted = new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                metrics.apiRequest("grpc", method == null ? fullName : method, status.getCode().name());
                if (accessLog) {
                    ACCESS.log(System.Logger.Level.INFO, "grpc {0} {1} {2} {3}ms",
                            String.valueOf(call.getAttributes().get(io.grpc.Grpc.TRANSPORT_ATTR_REMOTE_ADDR)),
                            fullName, status.getCode(), (System.nanoTime() - start) / 1_000_000);
                }
                super.close(status, trailers);
            }
        };
        return next.startCall(counted, headers);
    }
}
