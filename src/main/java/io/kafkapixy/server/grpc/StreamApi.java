package io.kafkapixy.server.grpc;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.atomic.LongAdder;

import io.kafkapixy.ops.PixyMetrics;
import io.kafkapixy.proxy.ProxySet;
import io.kafkapixy.stream.v1.PixyStreamGrpc;
import io.kafkapixy.stream.v1.ProduceRequest;
import io.kafkapixy.stream.v1.ProduceResponse;

/** The streaming service of {@code kafkapixy_stream.proto}, beside the original's {@link GrpcApi}. */
final class StreamApi extends PixyStreamGrpc.PixyStreamImplBase {

    private final ProxySet proxies;
    private final int maxUnansweredProduces;
    private final LongAdder openProduces;

    StreamApi(ProxySet proxies, int maxUnansweredProduces, PixyMetrics metrics) {
        this.proxies = proxies;
        this.maxUnansweredProduces = maxUnansweredProduces;
        this.openProduces = metrics.openStreams("Produce");
    }

    @Override
    public StreamObserver<ProduceRequest> produce(StreamObserver<ProduceResponse> responses) {
        return new ProduceStream(proxies, (ServerCallStreamObserver<ProduceResponse>) responses,
                maxUnansweredProduces, openProduces);
    }
}
