package io.kafkapixy.server.grpc;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.kafkapixy.security.Guard;
import io.kafkapixy.security.NamedClient;
import io.kafkapixy.security.Operation;
import io.kafkapixy.config.LimitsConfig;
import io.kafkapixy.ops.PixyMetrics;
import io.kafkapixy.ops.StreamMeters;
import io.kafkapixy.proxy.ProxySet;
import io.kafkapixy.stream.v1.ConsumeRequest;
import io.kafkapixy.stream.v1.ConsumeResponse;
import io.kafkapixy.stream.v1.PixyStreamGrpc;
import io.kafkapixy.stream.v1.ProduceRequest;
import io.kafkapixy.stream.v1.ProduceResponse;
import io.kafkapixy.stream.v1.RejectRequest;
import io.kafkapixy.stream.v1.RejectResponse;
import io.kafkapixy.stream.v1.RenewRequest;
import io.kafkapixy.stream.v1.RenewResponse;
import io.kafkapixy.consumer.Settlement;

/** The streaming service of {@code kafkapixy_stream.proto}, beside the original's {@link GrpcApi}. */
final class StreamApi extends PixyStreamGrpc.PixyStreamImplBase {

    private final ProxySet proxies;
    private final Guard guard;
    private final LimitsConfig limits;
    private final LongAdder openProduces;
    private final LongAdder openConsumes;
    /** Consume streams holding a slot of {@code limits.max_streams}. */
    private final AtomicInteger consumeStreams = new AtomicInteger();
    private final StreamMeters meters;

    StreamApi(ProxySet proxies, Guard guard, LimitsConfig limits, PixyMetrics metrics) {
        this.proxies = proxies;
        this.guard = guard;
        this.limits = limits;
        this.openProduces = metrics.openStreams("Produce");
        this.openConsumes = metrics.openStreams("Consume");
        this.meters = metrics.streams();
    }

    @Override
    public StreamObserver<ProduceRequest> produce(StreamObserver<ProduceResponse> responses) {
        return new ProduceStream(proxies, authorizer(), (ServerCallStreamObserver<ProduceResponse>) responses,
                limits.maxUnansweredProducesPerStream(), openProduces);
    }

    @Override
    public void reject(RejectRequest rq, StreamObserver<RejectResponse> out) {
        GrpcApi.settle(proxies, guard, rq.getCluster(), rq.getGroup(), rq.getTopic(), rq.getPartition(),
                rq.getOffset(), Settlement.REJECT, out, RejectResponse.getDefaultInstance());
    }

    @Override
    public void renew(RenewRequest rq, StreamObserver<RenewResponse> out) {
        GrpcApi.settle(proxies, guard, rq.getCluster(), rq.getGroup(), rq.getTopic(), rq.getPartition(),
                rq.getOffset(), Settlement.RENEW, out, RenewResponse.getDefaultInstance());
    }

    @Override
    public StreamObserver<ConsumeRequest> consume(StreamObserver<ConsumeResponse> responses) {
        return new ConsumeStream(proxies, authorizer(), (ServerCallStreamObserver<ConsumeResponse>) responses,
                limits.maxStreams(), limits.maxCreditsPerStream(), consumeStreams, openConsumes, meters);
    }

    /** What this call's client may do, asked of each message: the client is the one the call started as. */
    private Authorizer authorizer() {
        NamedClient client = GrpcAuth.client();
        return (operation, topic, group) -> guard.check(client, operation, topic, group);
    }

    /** Refuses ({@link io.kafkapixy.errors.PixyException#forbidden()}) what the stream's client may not do. */
    @FunctionalInterface
    interface Authorizer {
        void check(Operation operation, String topic, String group);
    }
}
