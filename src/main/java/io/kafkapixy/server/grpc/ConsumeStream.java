package io.kafkapixy.server.grpc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.UnsafeByteOperations;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.kafkapixy.consumer.ConsumedMessage;
import io.kafkapixy.consumer.ConsumerStream;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.ops.StreamMeters;
import io.kafkapixy.proxy.GroupNames;
import io.kafkapixy.proxy.Proxy;
import io.kafkapixy.proxy.ProxySet;
import io.kafkapixy.proxy.TopicNames;
import io.kafkapixy.security.Operation;
import io.kafkapixy.stream.v1.ConsumeRequest;
import io.kafkapixy.stream.v1.ConsumeResponse;
import io.kafkapixy.stream.v1.Header;
import io.kafkapixy.stream.v1.Message;
import io.kafkapixy.stream.v1.MessageRef;
import io.kafkapixy.stream.v1.Nack;

/**
 * One streaming {@code Consume} call: the first request subscribes a {@link ConsumerStream}; every request may grant
 * credits and carry acks and nacks; the stream's messages are written as they come. Whichever side ends the call,
 * the stream ends with it, and what it held is offered again at once.
 *
 * <p>Requests arrive one at a time on the call's executor; messages come from any thread under the group's lock and
 * take this object's monitor to write. Lock order: the group's lock, then this monitor; so nothing here calls into the
 * stream while holding the monitor.
 */
final class ConsumeStream implements StreamObserver<ConsumeRequest> {

    /**
     * A response's messages together, at most (unless one is larger): well under the 4 MiB gRPC clients take by
     * default, and small enough that the first messages are not held back by the last.
     */
    static final int MAX_BATCH_BYTES = 1 << 20;

    private final ProxySet proxies;
    private final ServerCallStreamObserver<ConsumeResponse> out;
    private final int maxStreams;
    private final int maxCredits;
    private final AtomicInteger streams;
    private final LongAdder open;
    private final StreamMeters meters;
    /** The client's address, for operators. */
    private final String peer = StreamPeers.current();
    private final StreamApi.Authorizer authorizer;
    /** Set by the first request, on the call's executor; read by later requests and by the end, on the same. */
    private volatile ConsumerStream stream;
    private boolean holdsSlot;
    // guarded by this
    private boolean ended;
    private long granted;
    private long sent;

    ConsumeStream(ProxySet proxies, StreamApi.Authorizer authorizer, ServerCallStreamObserver<ConsumeResponse> out,
                  int maxStreams, int maxCredits, AtomicInteger streams, LongAdder open, StreamMeters meters) {
        this.proxies = proxies;
        this.authorizer = authorizer;
        this.out = out;
        this.maxStreams = maxStreams;
        this.maxCredits = maxCredits;
        this.streams = streams;
        this.open = open;
        this.meters = meters;
        open.increment();
        out.setOnCancelHandler(() -> end(null));
        // a stream whose client does not read gets nothing more once this much waits to be sent (one full batch
        // and the next): its memory is bounded whatever its credits
        out.setOnReadyThreshold(2 * MAX_BATCH_BYTES);
        out.setOnReadyHandler(() -> {
            ConsumerStream s = stream;
            if (s != null && !isEnded()) {
                s.resume();
            }
        });
    }

    private synchronized boolean isEnded() {
        return ended;
    }

    @Override
    public void onNext(ConsumeRequest rq) {
        synchronized (this) {
            if (ended) {
                return;
            }
        }
        try {
            if (stream == null) {
                subscribe(rq);
            } else if (!rq.getCluster().isEmpty() || !rq.getGroup().isEmpty() || rq.getTopicsCount() > 0) {
                throw PixyException.badRequest("only the first request of a stream subscribes");
            }
            // acks and nacks first: room they make under max_pending_messages is filled by the credits in one round
            if (rq.getAcksCount() > 0) {
                int notHeld = stream.ack(refs(rq.getAcksList()));
                meters.acks(rq.getAcksCount() - notHeld, notHeld);
            }
            if (rq.getRejectsCount() > 0) {
                int notHeld = stream.reject(refs(rq.getRejectsList()));
                meters.acks(rq.getRejectsCount() - notHeld, notHeld);
            }
            if (rq.getRenewalsCount() > 0) {
                int notHeld = stream.renew(refs(rq.getRenewalsList()));
                meters.acks(rq.getRenewalsCount() - notHeld, notHeld);
            }
            for (Nack nack : rq.getNacksList()) {
                MessageRef m = nack.getMessage();
                meters.nack(stream.nack(topic(m), partition(m), offset(m),
                        Duration.ofMillis(Integer.toUnsignedLong(nack.getDelayMs()))));
            }
            long credits = Integer.toUnsignedLong(rq.getCredits());
            if (credits > 0) {
                grant(credits);
            }
        } catch (PixyException e) {
            end(e);
        }
    }

    private void subscribe(ConsumeRequest rq) {
        Proxy proxy = proxies.get(rq.getCluster());
        GroupNames.validate(rq.getGroup());
        if (rq.getTopicsCount() == 0) {
            throw PixyException.badRequest("a stream needs at least one topic");
        }
        LinkedHashSet<String> names = new LinkedHashSet<>();
        for (String topic : rq.getTopicsList()) {
            TopicNames.validate(topic);
            names.add(topic);
        }
        // the first request decides: a later one cannot name topics or a group
        for (String topic : names) {
            authorizer.check(Operation.READ, topic, rq.getGroup());
        }
        if (streams.incrementAndGet() > maxStreams) {
            streams.decrementAndGet();
            throw PixyException.tooManyStreams(maxStreams);
        }
        holdsSlot = true;
        stream = proxy.consumers().openStream(rq.getGroup(), List.copyOf(names), maxCredits, new Sink());
    }

    private void grant(long n) {
        synchronized (this) {
            if (ended) {
                // ended by the proxy meanwhile: its unspent credits are off the gauge already
                return;
            }
            // counted before the stream can spend them, so the gauge of unspent credits never goes below zero; if
            // they are refused, the stream ends and takes its unspent credits off the gauge
            granted += n;
            meters.unspent(n);
        }
        stream.credit(n);
        meters.granted(n);
    }

    private List<ConsumerStream.Ack> refs(List<MessageRef> refs) {
        List<ConsumerStream.Ack> acks = new ArrayList<>(refs.size());
        for (MessageRef r : refs) {
            acks.add(new ConsumerStream.Ack(topic(r), partition(r), offset(r)));
        }
        return acks;
    }

    /** The topic an ack or nack names; empty names the stream's topic when it has one. */
    private String topic(MessageRef m) {
        List<String> topics = stream.topics();
        if (m.getTopic().isEmpty() && topics.size() == 1) {
            return topics.getFirst();
        }
        if (!topics.contains(m.getTopic())) {
            throw PixyException.badRequest(m.getTopic().isEmpty()
                    ? "an ack or nack must name its topic when the stream consumes several"
                    : "an ack or nack of topic " + m.getTopic() + ", which this stream does not consume");
        }
        return m.getTopic();
    }

    private static int partition(MessageRef m) {
        if (m.getPartition() < 0) {
            throw PixyException.badRequest("bad partition: " + m.getPartition());
        }
        return m.getPartition();
    }

    private static long offset(MessageRef m) {
        if (m.getOffset() < 0) {
            throw PixyException.badRequest("bad offset: " + m.getOffset());
        }
        return m.getOffset();
    }

    /**
     * Ends the call from this side or the client's ({@code reason} null: the client is gone or done): the stream
     * gives back what it held, then the status goes out. Once.
     */
    private void end(PixyException reason) {
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
        }
        ConsumerStream s = stream;
        int givenBack = s == null ? 0 : s.close();
        synchronized (this) {
            finish(givenBack);
            if (reason != null) {
                out.onError(GrpcErrors.toStatus(reason));
            } else if (!out.isCancelled()) {
                out.onCompleted();
            }
        }
    }

    /** Under the monitor, once: the stream's meters and slot. */
    private void finish(int givenBack) {
        meters.ended(granted - sent, givenBack);
        open.decrement();
        if (holdsSlot) {
            holdsSlot = false;
            streams.decrementAndGet();
        }
    }

    @Override
    public void onError(Throwable t) {
        end(null);
    }

    @Override
    public void onCompleted() {
        // the client sends nothing more: no more acks can come, so what it holds goes to others now
        end(null);
    }

    /**
     * The stream's side: messages and the end the proxy decides, called under the group's lock. Messages handed out
     * in one round go in one response, cut at {@link #MAX_BATCH_BYTES}.
     */
    private final class Sink implements ConsumerStream.Sink {

        // guarded by the group's lock, like every call here
        private ConsumeResponse.Builder batch = ConsumeResponse.newBuilder();
        private int batchBytes;

        @Override
        public String peer() {
            return peer;
        }

        @Override
        public boolean deliver(ConsumedMessage m) {
            Message message = message(m);
            int size = message.getSerializedSize();
            // the field's tag and length prefix in the response
            size += CodedOutputStream.computeTagSize(1) + CodedOutputStream.computeUInt32SizeNoTag(size);
            boolean sentBefore = false;
            if (batch.getMessagesCount() > 0 && batchBytes + size > MAX_BATCH_BYTES) {
                sentBefore = flush();
            }
            batch.addMessages(message);
            batchBytes += size;
            return sentBefore;
        }

        @Override
        public boolean flush() {
            if (batch.getMessagesCount() == 0) {
                return true;
            }
            ConsumeResponse rs = batch.build();
            batch = ConsumeResponse.newBuilder();
            batchBytes = 0;
            synchronized (ConsumeStream.this) {
                if (ended) {
                    // the stream is being ended: they are given back as never delivered
                    return false;
                }
                sent += rs.getMessagesCount();
                meters.sent(rs.getMessagesCount());
                out.onNext(rs);
                return true;
            }
        }

        @Override
        public boolean ready() {
            synchronized (ConsumeStream.this) {
                // a stream being ended is fed nothing more
                return !ended && out.isReady();
            }
        }

        @Override
        public void end(PixyException reason, int givenBack) {
            synchronized (ConsumeStream.this) {
                if (ended) {
                    return;
                }
                ended = true;
                finish(givenBack);
                out.onError(GrpcErrors.toStatus(reason));
            }
        }
    }

    private static Message message(ConsumedMessage m) {
        // Kafka's arrays are not changed after a record is fetched: wrapped, not copied
        Message.Builder rs = Message.newBuilder().setTopic(m.topic()).setPartition(m.partition())
                .setOffset(m.offset()).setAttempt(m.attempt());
        if (m.key() == null) {
            rs.setKeyUndefined(true);
        } else {
            rs.setKeyValue(UnsafeByteOperations.unsafeWrap(m.key()));
        }
        if (m.value() != null) {
            rs.setMessage(UnsafeByteOperations.unsafeWrap(m.value()));
        }
        List<Header> headers = new ArrayList<>(m.headers().size());
        for (org.apache.kafka.common.header.Header h : m.headers()) {
            Header.Builder header = Header.newBuilder().setKey(h.key());
            if (h.value() != null) {
                header.setValue(UnsafeByteOperations.unsafeWrap(h.value()));
            }
            headers.add(header.build());
        }
        return rs.addAllHeaders(headers).build();
    }
}
