package io.kafkapixy.server.grpc;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.grpc.stub.StreamObserver;
import io.kafkapixy.security.Guard;
import io.kafkapixy.security.NamedClient;
import io.kafkapixy.security.Operation;
import com.google.protobuf.ByteString;
import io.kafkapixy.admin.OffsetUpdate;
import io.kafkapixy.admin.PartitionOffsets;
import io.kafkapixy.admin.TopicInfo;
import io.kafkapixy.consumer.AckMode;
import io.kafkapixy.consumer.ConsumedMessage;
import io.kafkapixy.consumer.PendingConsume;
import io.kafkapixy.consumer.Settlement;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.producer.ProduceRequest;
import io.kafkapixy.producer.ProduceResult;
import io.kafkapixy.proxy.Proxy;
import io.kafkapixy.proxy.GroupNames;
import io.kafkapixy.proxy.ProxySet;
import io.kafkapixy.proxy.TopicNames;
import mailgun.kafkapixy.AckRq;
import mailgun.kafkapixy.AckRs;
import mailgun.kafkapixy.ConsNAckRq;
import mailgun.kafkapixy.ConsRs;
import mailgun.kafkapixy.ConsumerGroups;
import mailgun.kafkapixy.ConsumerPartitions;
import mailgun.kafkapixy.GetOffsetsRq;
import mailgun.kafkapixy.GetOffsetsRs;
import mailgun.kafkapixy.GetTopicMetadataRq;
import mailgun.kafkapixy.GetTopicMetadataRs;
import mailgun.kafkapixy.KafkaPixyGrpc;
import mailgun.kafkapixy.ListConsumersRq;
import mailgun.kafkapixy.ListConsumersRs;
import mailgun.kafkapixy.ListTopicRq;
import mailgun.kafkapixy.ListTopicRs;
import mailgun.kafkapixy.PartitionMetadata;
import mailgun.kafkapixy.PartitionOffset;
import mailgun.kafkapixy.SetOffsetsRq;
import mailgun.kafkapixy.SetOffsetsRs;
import mailgun.kafkapixy.ProdRq;
import mailgun.kafkapixy.ProdRs;
import mailgun.kafkapixy.RecordHeader;
import org.apache.kafka.common.header.Header;

/**
 * The original's {@code KafkaPixy} gRPC service, with its messages, status codes and error texts. Each call resolves
 * its cluster first (an unknown one is {@code INVALID_ARGUMENT}); domain errors go through {@link GrpcErrors}.
 */
final class GrpcApi extends KafkaPixyGrpc.KafkaPixyImplBase {

    private static final System.Logger LOG = System.getLogger(GrpcApi.class.getName());
    private static final ProdRs ASYNC_RESPONSE = ProdRs.newBuilder().setPartition(-1).setOffset(-1).build();

    private final ProxySet proxies;
    private final Guard guard;
    private final Executor mayWait;

    /**
     * @param guard   what the call's client ({@link GrpcAuth#client()}) may do, checked before anything is done
     * @param mayWait the server's threads for calls that may block, where a call leaves the event loop
     */
    GrpcApi(ProxySet proxies, Guard guard, Executor mayWait) {
        this.proxies = proxies;
        this.guard = guard;
        this.mayWait = mayWait;
    }

    /**
     * Runs on the connection's event loop. When the producer takes the message without waiting (the topic produced to
     * lately, room in its buffer) it is handed over here and the answer goes out from the producer's thread once
     * Kafka has it: no thread in between. Otherwise, a first message to a topic or a full buffer, the call moves to a
     * virtual thread of its own, which may wait.
     */
    @Override
    public void produce(ProdRq rq, StreamObserver<ProdRs> out) {
        Proxy proxy;
        ProduceRequest message;
        try {
            proxy = proxies.get(rq.getCluster());
            TopicNames.validate(rq.getTopic());
            guard.check(GrpcAuth.client(), Operation.WRITE, rq.getTopic(), null);
            message = GrpcMessages.produceRequest(rq.getTopic(), rq.getKeyUndefined(), rq.getKeyValue(),
                    rq.getMessage(), rq.getHeadersList(), RecordHeader::getKey, RecordHeader::getValue);
        } catch (RuntimeException e) {
            fail(out, e);
            return;
        }
        if (!proxy.producer().sendsAtOnce(rq.getTopic())) {
            mayWait.execute(() -> unary(out, () -> produceWaiting(proxy, rq, message)));
            return;
        }
        if (rq.getAsyncMode()) {
            unary(out, () -> {
                proxy.producer().produceAsync(message);
                return ASYNC_RESPONSE;
            });
            return;
        }
        try {
            proxy.producer().produceThen(message, (result, error) -> {
                if (error != null) {
                    fail(out, error);
                    return;
                }
                out.onNext(ProdRs.newBuilder().setPartition(result.partition()).setOffset(result.offset()).build());
                out.onCompleted();
            });
        } catch (RuntimeException e) {
            fail(out, e);
        }
    }

    private static ProdRs produceWaiting(Proxy proxy, ProdRq rq, ProduceRequest message) {
        if (rq.getAsyncMode()) {
            proxy.producer().produceAsync(message);
            return ASYNC_RESPONSE;
        }
        ProduceResult result = proxy.producer().produceSync(message);
        return ProdRs.newBuilder().setPartition(result.partition()).setOffset(result.offset()).build();
    }

    @Override
    public void consumeNAck(ConsNAckRq rq, StreamObserver<ConsRs> out) {
        Proxy proxy;
        AckMode ack;
        try {
            proxy = proxies.get(rq.getCluster());
            GroupNames.validate(rq.getGroup());
            TopicNames.validate(rq.getTopic());
            guard.check(GrpcAuth.client(), Operation.READ, rq.getTopic(), rq.getGroup());
            if (rq.getNoAck()) {
                ack = AckMode.NONE;
            } else if (rq.getAutoAck()) {
                ack = AckMode.AUTO;
            } else {
                // Both flags false is an explicit ack, of partition 0 offset 0 when unset, as in the original.
                validateAck(rq.getAckPartition(), rq.getAckOffset());
                ack = AckMode.explicit(rq.getAckPartition(), rq.getAckOffset());
            }
        } catch (RuntimeException e) {
            fail(out, e);
            return;
        }
        UnaryConsumeCall call = UnaryConsumeCall.watch(out);
        // This runs on the connection's event loop, which reads the calls behind this one only when it returns. A
        // request that sets up a member or a share group (milliseconds of work, more in a cold process, and it may
        // ask ZooKeeper or the broker) goes to a thread of its own; its long poll counts from now all the same.
        Instant arrival = proxy.consumers().now();
        if (proxy.consumers().needsSetUp(rq.getGroup(), rq.getTopic())) {
            mayWait.execute(io.opentelemetry.context.Context.current()
                    .wrap(() -> consume(proxy, rq, ack, out, call, arrival)));
        } else {
            consume(proxy, rq, ack, out, call, arrival);
        }
    }

    private static void consume(Proxy proxy, ConsNAckRq rq, AckMode ack, StreamObserver<ConsRs> out,
                                UnaryConsumeCall call, Instant arrival) {
        PendingConsume pending;
        try {
            pending = proxy.consumers().consumeAsync(rq.getGroup(), rq.getTopic(), ack, call, arrival);
        } catch (RuntimeException e) {
            fail(out, e);
            return;
        }
        call.parked(pending);
        // Completes here when a message is ready, else on the thread that hands one over or on the deadline timer.
        // The message counts as delivered if its answer went out in time, and comes back otherwise.
        pending.result().whenComplete((m, error) -> {
            if (error != null) {
                out.onError(GrpcErrors.toStatus(PendingConsume.failure(error)));
                return;
            }
            ConsRs rs;
            try {
                rs = response(m);
            } catch (RuntimeException e) {
                call.answeredWithout();
                fail(out, e);
                return;
            }
            call.answering();
            out.onNext(rs);
            out.onCompleted();
        });
    }

    private static ConsRs response(ConsumedMessage m) {
        ConsRs.Builder rs = ConsRs.newBuilder().setPartition(m.partition()).setOffset(m.offset());
        if (m.key() == null) {
            rs.setKeyUndefined(true);
        } else {
            rs.setKeyValue(ByteString.copyFrom(m.key()));
        }
        if (m.value() != null) {
            rs.setMessage(ByteString.copyFrom(m.value()));
        }
        for (Header h : m.headers()) {
            RecordHeader.Builder header = RecordHeader.newBuilder().setKey(h.key());
            if (h.value() != null) {
                header.setValue(ByteString.copyFrom(h.value()));
            }
            rs.addHeaders(header);
        }
        return rs.build();
    }

    @Override
    public void ack(AckRq rq, StreamObserver<AckRs> out) {
        settle(proxies, guard, rq.getCluster(), rq.getGroup(), rq.getTopic(), rq.getPartition(), rq.getOffset(),
                Settlement.ACK, out, AckRs.getDefaultInstance());
    }

    /**
     * Acks or rejects a message and answers {@code response} once that is done, without blocking the calling thread
     * (a share group's settlement completes when the broker took it). Every settlement needs {@code read} on the
     * topic and the group.
     */
    static <T> void settle(ProxySet proxies, Guard guard, String cluster, String group, String topic, int partition,
                           long offset, Settlement how, StreamObserver<T> out, T response) {
        java.util.concurrent.CompletableFuture<Void> done;
        try {
            Proxy proxy = proxies.get(cluster);
            validateAck(partition, offset);
            GroupNames.validate(group);
            TopicNames.validate(topic);
            guard.check(GrpcAuth.client(), Operation.READ, topic, group);
            done = proxy.consumers().settle(group, topic, partition, offset, how);
        } catch (RuntimeException e) {
            fail(out, e);
            return;
        }
        done.whenComplete((v, error) -> {
            if (error != null) {
                fail(out, PendingConsume.failure(error));
                return;
            }
            out.onNext(response);
            out.onCompleted();
        });
    }

    @Override
    public void getOffsets(GetOffsetsRq rq, StreamObserver<GetOffsetsRs> out) {
        unary(out, () -> {
            Proxy proxy = proxies.get(rq.getCluster());
            GroupNames.validate(rq.getGroup());
            TopicNames.validate(rq.getTopic());
            guard.check(GrpcAuth.client(), Operation.DESCRIBE, rq.getTopic(), rq.getGroup());
            GetOffsetsRs.Builder rs = GetOffsetsRs.newBuilder();
            for (PartitionOffsets o : proxy.admin().getOffsets(rq.getGroup(), rq.getTopic())) {
                rs.addOffsets(PartitionOffset.newBuilder().setPartition(o.partition()).setBegin(o.begin())
                        .setEnd(o.end()).setCount(o.count()).setOffset(o.offset()).setLag(o.lag())
                        .setMetadata(o.metadata()).setSparseAcks(o.sparseAcks()));
            }
            return rs.build();
        });
    }

    @Override
    public void setOffsets(SetOffsetsRq rq, StreamObserver<SetOffsetsRs> out) {
        unary(out, () -> {
            Proxy proxy = proxies.get(rq.getCluster());
            GroupNames.validate(rq.getGroup());
            TopicNames.validate(rq.getTopic());
            guard.check(GrpcAuth.client(), Operation.ALTER, rq.getTopic(), rq.getGroup());
            List<OffsetUpdate> updates = new ArrayList<>();
            for (PartitionOffset o : rq.getOffsetsList()) {
                updates.add(new OffsetUpdate(o.getPartition(), o.getOffset(), o.getMetadata()));
            }
            proxy.admin().setOffsets(rq.getGroup(), rq.getTopic(), updates);
            return SetOffsetsRs.getDefaultInstance();
        });
    }

    @Override
    public void listTopics(ListTopicRq rq, StreamObserver<ListTopicRs> out) {
        unary(out, () -> {
            Proxy proxy = proxies.get(rq.getCluster());
            ListTopicRs.Builder rs = ListTopicRs.newBuilder();
            NamedClient client = GrpcAuth.client();
            proxy.admin().listTopics(rq.getWithPartitions(), true).forEach((name, info) -> {
                if (client.mayDescribeTopic(name)) {
                    rs.putTopics(name, topicMetadata(info));
                }
            });
            return rs.build();
        });
    }

    @Override
    public void getTopicMetadata(GetTopicMetadataRq rq, StreamObserver<GetTopicMetadataRs> out) {
        unary(out, () -> {
            Proxy proxy = proxies.get(rq.getCluster());
            TopicNames.validate(rq.getTopic());
            guard.check(GrpcAuth.client(), Operation.DESCRIBE, rq.getTopic(), null);
            return topicMetadata(proxy.admin().topic(rq.getTopic(), rq.getWithPartitions()));
        });
    }

    @Override
    public void listConsumers(ListConsumersRq rq, StreamObserver<ListConsumersRs> out) {
        unary(out, () -> {
            Proxy proxy = proxies.get(rq.getCluster());
            TopicNames.validate(rq.getTopic());
            Optional<String> group = rq.getGroup().isEmpty() ? Optional.empty() : Optional.of(rq.getGroup());
            group.ifPresent(GroupNames::validate);
            NamedClient client = GrpcAuth.client();
            guard.check(client, Operation.DESCRIBE, rq.getTopic(), group.orElse(null));
            ListConsumersRs.Builder rs = ListConsumersRs.newBuilder();
            proxy.admin().listConsumers(rq.getTopic(), group).forEach((g, members) -> {
                if (!client.mayDescribeGroup(g)) {
                    return;
                }
                ConsumerGroups.Builder cg = ConsumerGroups.newBuilder();
                members.forEach((member, partitions) -> cg.putConsumers(member,
                        ConsumerPartitions.newBuilder().addAllPartitions(partitions).build()));
                rs.putGroups(g, cg.build());
            });
            return rs.build();
        });
    }

    private static GetTopicMetadataRs topicMetadata(TopicInfo info) {
        GetTopicMetadataRs.Builder rs = GetTopicMetadataRs.newBuilder();
        info.config().ifPresent(c -> rs.setVersion(c.version()).putAllConfig(c.config()));
        info.partitions().ifPresent(parts -> parts.forEach(p -> rs.addPartitions(PartitionMetadata.newBuilder()
                .setPartition(p.partition()).setLeader(p.leader()).addAllReplicas(p.replicas())
                .addAllIsr(p.isr()))));
        return rs.build();
    }

    private static void validateAck(int partition, long offset) {
        if (partition < 0) {
            throw PixyException.badRequest("invalid ack: bad partition: " + partition);
        }
        if (offset < 0) {
            throw PixyException.badRequest("invalid ack: bad offset: " + offset);
        }
    }

    private static <T> void unary(StreamObserver<T> out, Supplier<T> call) {
        T response;
        try {
            response = call.get();
        } catch (RuntimeException e) {
            fail(out, e);
            return;
        }
        out.onNext(response);
        out.onCompleted();
    }

    private static void fail(StreamObserver<?> out, RuntimeException e) {
        if (e instanceof PixyException p) {
            out.onError(GrpcErrors.toStatus(p));
            return;
        }
        LOG.log(Level.ERROR, "gRPC call failed", e);
        out.onError(GrpcErrors.toStatus(new PixyException(ErrorKind.INTERNAL, String.valueOf(e.getMessage()))));
    }
}
