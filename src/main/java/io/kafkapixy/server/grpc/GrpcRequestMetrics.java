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
    private static final java.time.format.DateTimeFormatter TIME =
            java.time.format.DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", java.util.Locale.US);

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
                    ACCESS.log(System.Logger.Level.INFO, line(call, fullName, status, System.nanoTime() - start));
                }
                super.close(status, trailers);
            }
        };
        return next.startCall(counted, headers);
    }

    /**
     * Like the REST access log's lines, time in microseconds:
     * {@code 10.0.0.1 - [30/Nov/2026:10:00:00 +0000] "gRPC KafkaPixy/Produce" OK 1234}.
     */
    private static String line(ServerCall<?, ?> call, String method, Status status, long nanos) {
        java.net.SocketAddress remote = call.getAttributes().get(io.grpc.Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        String host = remote instanceof java.net.InetSocketAddress a ? a.getAddress().getHostAddress()
                : String.valueOf(remote);
        return host + " - [" + TIME.format(java.time.ZonedDateTime.now()) + "] \"gRPC " + method + "\" "
               + status.getCode() + " " + nanos / 1_000;
    }
}
