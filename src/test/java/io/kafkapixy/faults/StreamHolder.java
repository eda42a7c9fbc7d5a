package io.kafkapixy.faults;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.kafkapixy.stream.v1.ConsumeRequest;
import io.kafkapixy.stream.v1.ConsumeResponse;
import io.kafkapixy.stream.v1.PixyStreamGrpc;
import io.grpc.stub.StreamObserver;

/**
 * A streaming consumer in a process of its own that takes {@code n} messages, acks none, says {@code HOLDING n} and
 * waits to be killed: the client that {@link StreamClientKillIT} kills with SIGKILL.
 *
 * <p>Arguments: gRPC port, group, topic, n.
 */
public final class StreamHolder {

    private StreamHolder() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String group = args[1];
        String topic = args[2];
        int n = Integer.parseInt(args[3]);
        ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        AtomicInteger received = new AtomicInteger();
        CountDownLatch ended = new CountDownLatch(1);
        StreamObserver<ConsumeRequest> requests = PixyStreamGrpc.newStub(channel).consume(
                new StreamObserver<>() {
                    @Override
                    public void onNext(ConsumeResponse rs) {
                        if (received.addAndGet(rs.getMessagesCount()) == n) {
                            System.out.println("HOLDING " + n);
                            System.out.flush();
                        }
                    }

                    @Override
                    public void onError(Throwable t) {
                        System.out.println("ENDED " + t);
                        ended.countDown();
                    }

                    @Override
                    public void onCompleted() {
                        System.out.println("ENDED");
                        ended.countDown();
                    }
                });
        requests.onNext(ConsumeRequest.newBuilder().setGroup(group).addAllTopics(List.of(topic)).setCredits(n)
                .build());
        ended.await();
    }
}
