package io.kafkapixy.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.kafkapixy.stream.v1.ConsumeRequest;
import io.kafkapixy.stream.v1.ConsumeResponse;
import io.kafkapixy.stream.v1.Message;
import io.kafkapixy.stream.v1.MessageRef;
import io.kafkapixy.stream.v1.Nack;
import io.kafkapixy.stream.v1.PixyStreamGrpc;

/**
 * A test client's side of one streaming {@code Consume} call: what it sends, every message it gets in arrival order,
 * and how the call ended. Messages are queued one by one, whatever response they came in.
 */
public final class StreamConsumer implements ClientResponseObserver<ConsumeRequest, ConsumeResponse> {

    private final LinkedBlockingQueue<Message> received = new LinkedBlockingQueue<>();
    /** Each response as it came: its messages' count and its size on the wire. */
    public final List<int[]> responses = java.util.Collections.synchronizedList(new ArrayList<>());
    private final CompletableFuture<Status> end = new CompletableFuture<>();
    private ClientCallStreamObserver<ConsumeRequest> requests;

    public StreamConsumer(ManagedChannel channel) {
        PixyStreamGrpc.newStub(channel).withDeadlineAfter(120, TimeUnit.SECONDS).consume(this);
    }

    /** Opens a stream of {@code group}'s messages of {@code topics} with {@code credits} to start with. */
    public static StreamConsumer open(ManagedChannel channel, String group, List<String> topics, int credits) {
        StreamConsumer c = new StreamConsumer(channel);
        c.send(ConsumeRequest.newBuilder().setGroup(group).addAllTopics(topics).setCredits(credits).build());
        return c;
    }

    public synchronized void send(ConsumeRequest rq) {
        requests.onNext(rq);
    }

    public void credit(int n) {
        send(ConsumeRequest.newBuilder().setCredits(n).build());
    }

    public void ack(Message... messages) {
        ConsumeRequest.Builder rq = ConsumeRequest.newBuilder();
        for (Message m : messages) {
            rq.addAcks(ref(m));
        }
        send(rq.build());
    }

    public void nack(Message m, int delayMs) {
        send(ConsumeRequest.newBuilder().addNacks(Nack.newBuilder().setMessage(ref(m)).setDelayMs(delayMs)).build());
    }

    public static MessageRef ref(Message m) {
        return MessageRef.newBuilder().setTopic(m.getTopic()).setPartition(m.getPartition()).setOffset(m.getOffset())
                .build();
    }

    /** The next message, waiting up to {@code timeout}; fails the test when none comes. */
    public Message take(Duration timeout) throws InterruptedException {
        Message m = received.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (m == null) {
            throw new AssertionError("no message within " + timeout + (end.isDone() ? "; ended " + end.join() : ""));
        }
        return m;
    }

    /** The next {@code n} messages, each within {@code timeout}. */
    public List<Message> take(int n, Duration timeout) throws InterruptedException {
        List<Message> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(take(timeout));
        }
        return out;
    }

    /** Messages received and not taken yet. */
    public int waiting() {
        return received.size();
    }

    public void halfClose() {
        synchronized (this) {
            requests.onCompleted();
        }
    }

    /** Ends the call from the client's side as a crash would (RST_STREAM). */
    public void cancel() {
        requests.cancel("client gone", null);
    }

    /** How the call ended: OK or the status it ended with. */
    public Status awaitEnd(Duration timeout) throws Exception {
        return end.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public boolean ended() {
        return end.isDone();
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<ConsumeRequest> requestStream) {
        this.requests = requestStream;
    }

    @Override
    public void onNext(ConsumeResponse value) {
        responses.add(new int[] {value.getMessagesCount(), value.getSerializedSize()});
        received.addAll(value.getMessagesList());
    }

    @Override
    public void onError(Throwable t) {
        end.complete(Status.fromThrowable(t));
    }

    @Override
    public void onCompleted() {
        end.complete(Status.OK);
    }
}
