package io.kafkapixy.bench;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import mailgun.kafkapixy.AckRq;
import mailgun.kafkapixy.ConsNAckRq;
import mailgun.kafkapixy.ConsRs;
import mailgun.kafkapixy.KafkaPixyGrpc;
import mailgun.kafkapixy.ProdRq;

/**
 * The proxy's gRPC API as the benchmark calls it: blocking stubs generated from the original {@code kafkapixy.proto},
 * on one channel the caller owns. Thread-safe (stubs and channels are).
 */
final class PixyGrpc {

    /** The long poll's end: NOT_FOUND with this description (GrpcErrors maps LONG_POLL_TIMEOUT so, as the original). */
    static final String LONG_POLL_TIMEOUT = "long polling timeout";

    private final KafkaPixyGrpc.KafkaPixyBlockingStub stub;
    private final Duration longPoll;

    PixyGrpc(ManagedChannel channel, Duration longPoll) {
        this.stub = KafkaPixyGrpc.newBlockingStub(channel);
        this.longPoll = longPoll;
    }

    /** Produces one message without a key (a random partition, as REST without {@code key}). */
    void produce(String topic, ByteString value, boolean async) {
        stub.withDeadlineAfter(30, TimeUnit.SECONDS).produce(ProdRq.newBuilder().setTopic(topic).setKeyUndefined(true)
                .setMessage(value).setAsyncMode(async).build());
    }

    /** One ConsumeNAck; empty when the long poll timed out. */
    Optional<ConsRs> consumeNAck(ConsNAckRq rq) {
        try {
            return Optional.of(stub.withDeadlineAfter(longPoll.toMillis() + 10_000, TimeUnit.MILLISECONDS)
                    .consumeNAck(rq));
        } catch (StatusRuntimeException e) {
            if (isLongPollTimeout(e.getStatus())) {
                return Optional.empty();
            }
            throw e;
        }
    }

    void ack(String topic, String group, int partition, long offset) {
        stub.withDeadlineAfter(30, TimeUnit.SECONDS).ack(AckRq.newBuilder().setTopic(topic).setGroup(group)
                .setPartition(partition).setOffset(offset).build());
    }

    static boolean isLongPollTimeout(Status status) {
        return status.getCode() == Status.Code.NOT_FOUND && LONG_POLL_TIMEOUT.equals(status.getDescription());
    }

    /** The canonical first request of a consume-and-ack loop: nothing to ack yet. */
    static ConsNAckRq first(String topic, String group) {
        return ConsNAckRq.newBuilder().setTopic(topic).setGroup(group).setNoAck(true).build();
    }

    /** Every later request acks the message the previous one returned. */
    static ConsNAckRq next(String topic, String group, ConsRs previous) {
        return ConsNAckRq.newBuilder().setTopic(topic).setGroup(group).setAckPartition(previous.getPartition())
                .setAckOffset(previous.getOffset()).build();
    }
}
