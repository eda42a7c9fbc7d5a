package io.kafkapixy.server.grpc;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.Collectors;

import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.helidon.metrics.api.Counter;
import io.kafkapixy.ops.PixyMetrics;

/**
 * Counts every gRPC stream by method and status when it ends and, with the access log on, logs one line for it.
 * A stream tracer, not an interceptor: it also sees the streams the transport ends itself before or without a call
 * (a request over the size limit, a malformed frame, a client that cancels), with the status the client got.
 * Methods this server does not serve are counted as {@code other}, so clients cannot grow the label set.
 */
final class GrpcRequestMetrics extends ServerStreamTracer.Factory {

    private static final System.Logger ACCESS = System.getLogger("io.kafkapixy.access");
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.US);
    static final String OTHER = "other";

    private final PixyMetrics metrics;
    private final boolean accessLog;
    /** Full method name ({@code KafkaPixy/Produce}) to its label ({@code Produce}), for the methods served. */
    private final Map<String, Label> labels;
    private final Label other;

    /** @param knownMethods full names ({@code KafkaPixy/Produce}) of the methods this server serves */
    GrpcRequestMetrics(PixyMetrics metrics, boolean accessLog, Set<String> knownMethods) {
        this.metrics = metrics;
        this.accessLog = accessLog;
        this.labels = knownMethods.stream()
                .collect(Collectors.toUnmodifiableMap(m -> m, m -> new Label(m.substring(m.lastIndexOf('/') + 1))));
        this.other = new Label(OTHER);
    }

    @Override
    public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
        Label label = labels.get(fullMethodName);
        return label == null ? new Stream(System.nanoTime(), other, OTHER)
                : new Stream(System.nanoTime(), label, fullMethodName);
    }

    /** A method's label and its counters by status, found once each rather than per call. */
    private final class Label {
        private final String method;
        private final AtomicReferenceArray<Counter> byStatus = new AtomicReferenceArray<>(Status.Code.values().length);

        Label(String method) {
            this.method = method;
        }

        void count(Status.Code code) {
            Counter c = byStatus.get(code.ordinal());
            if (c == null) {
                c = metrics.apiRequests("grpc", method, code.name());
                byStatus.set(code.ordinal(), c);
            }
            c.increment();
        }
    }

    /** One stream: started on the transport thread, its call and its end reported from any thread, once each. */
    private final class Stream extends ServerStreamTracer {
        private final long start;
        private final Label label;
        private final String fullName;
        private volatile SocketAddress remote;

        Stream(long start, Label label, String fullName) {
            this.start = start;
            this.label = label;
            this.fullName = fullName;
        }

        @Override
        public void serverCallStarted(ServerCallInfo<?, ?> callInfo) {
            remote = callInfo.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        }

        @Override
        public void streamClosed(Status status) {
            label.count(status.getCode());
            if (accessLog) {
                ACCESS.log(System.Logger.Level.INFO, line(status, System.nanoTime() - start));
            }
        }

        /**
         * Like the REST access log's lines, time in microseconds:
         * {@code 10.0.0.1 - [30/Nov/2026:10:00:00 +0000] "gRPC KafkaPixy/Produce" OK 1234}.
         */
        private String line(Status status, long nanos) {
            SocketAddress r = remote;
            String host = r instanceof InetSocketAddress a ? a.getAddress().getHostAddress() : "-";
            return host + " - [" + TIME.format(ZonedDateTime.now()) + "] \"gRPC " + fullName + "\" "
                   + status.getCode() + " " + nanos / 1_000;
        }
    }
}
