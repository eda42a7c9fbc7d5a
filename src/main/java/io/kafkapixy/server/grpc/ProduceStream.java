package io.kafkapixy.server.grpc;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.proxy.Proxy;
import io.kafkapixy.proxy.ProxySet;
import io.kafkapixy.proxy.TopicNames;
import io.kafkapixy.security.Operation;
import io.kafkapixy.stream.v1.Header;
import io.kafkapixy.stream.v1.ProduceResponse;

/**
 * One streaming {@code Produce} call: each message goes to the cluster's producer at once and is answered with its id
 * when Kafka answers. The call takes at most {@code maxUnanswered} messages ahead of their answers, and takes more
 * only while the client reads the answers, so a stream holds a bounded number of messages whatever the client does.
 *
 * <p>Requests arrive one at a time on the call's executor; answers come from the producer's thread. The response
 * observer is not thread-safe, so everything that touches it, and the counts, is under this object's monitor.
 */
final class ProduceStream implements StreamObserver<io.kafkapixy.stream.v1.ProduceRequest> {

    private final ProxySet proxies;
    private final ServerCallStreamObserver<ProduceResponse> out;
    private final java.util.concurrent.atomic.LongAdder open;
    // guarded by this
    private int unanswered;
    /** Messages answered whose place the client has not been given again yet. */
    private int deferredRequests;
    /**
     * Places are given back this many at a time: each request(n) is a task on the connection's event loop, so one per
     * answer cost as much as the answer's write. A sixteenth of the limit keeps the client's window mostly open.
     */
    private final int requestBatch;
    private final StreamApi.Authorizer authorizer;
    private boolean halfClosed;
    private boolean ended;

    ProduceStream(ProxySet proxies, StreamApi.Authorizer authorizer, ServerCallStreamObserver<ProduceResponse> out,
                  int maxUnanswered, java.util.concurrent.atomic.LongAdder open) {
        this.proxies = proxies;
        this.authorizer = authorizer;
        this.out = out;
        this.open = open;
        open.increment();
        out.disableAutoRequest();
        out.setOnReadyHandler(this::onReady);
        out.setOnCancelHandler(this::cancelled);
        this.requestBatch = Math.max(1, maxUnanswered / 16);
        out.request(maxUnanswered);
    }

    @Override
    public void onNext(io.kafkapixy.stream.v1.ProduceRequest rq) {
        Proxy proxy;
        synchronized (this) {
            if (ended) {
                return;
            }
            unanswered++;
            try {
                proxy = proxies.get(rq.getCluster());
            } catch (PixyException e) {
                end();
                out.onError(GrpcErrors.toStatus(e));
                return;
            }
        }
        long id = rq.getId();
        try {
            TopicNames.validate(rq.getTopic());
            // a message to a topic the client may not write to is refused alone
            authorizer.check(Operation.WRITE, rq.getTopic(), null);
            proxy.producer().produceLater(GrpcMessages.produceRequest(rq.getTopic(), rq.getKeyUndefined(),
                    rq.getKeyValue(), rq.getMessage(), rq.getHeadersList(), Header::getKey, Header::getValue))
                    .whenComplete((result, error) -> {
                        if (error == null) {
                            answer(ProduceResponse.newBuilder().setId(id).setPartition(result.partition())
                                    .setOffset(result.offset()).build());
                        } else {
                            answer(failed(id, error));
                        }
                    });
        } catch (RuntimeException e) {
            answer(failed(id, e));
        }
    }

    /** The answer the unary Produce would have ended with, as this message's answer. */
    private static ProduceResponse failed(long id, Throwable error) {
        // produceLater fails with the domain exception itself (whenComplete on it sees it unwrapped)
        PixyException e = error instanceof PixyException p ? p
                : new PixyException(ErrorKind.INTERNAL, String.valueOf(error.getMessage()));
        return ProduceResponse.newBuilder().setId(id).setCode(GrpcErrors.code(e).value())
                .setError(String.valueOf(e.getMessage())).build();
    }

    private synchronized void answer(ProduceResponse response) {
        if (ended) {
            return;
        }
        out.onNext(response);
        unanswered--;
        if (halfClosed && unanswered == 0) {
            end();
            out.onCompleted();
        } else {
            deferredRequests++;
            // while the client does not read its answers, its next messages wait until it does (onReady)
            if (deferredRequests >= requestBatch && out.isReady()) {
                out.request(deferredRequests);
                deferredRequests = 0;
            }
        }
    }

    /** Under the monitor: the stream is over for this side, counted once. */
    private void end() {
        if (!ended) {
            ended = true;
            open.decrement();
        }
    }

    private synchronized void onReady() {
        if (!ended && deferredRequests > 0) {
            out.request(deferredRequests);
            deferredRequests = 0;
        }
    }

    private synchronized void cancelled() {
        end();
    }

    @Override
    public synchronized void onError(Throwable t) {
        // the client went away: its unanswered messages are still produced, their answers have nowhere to go
        end();
    }

    @Override
    public synchronized void onCompleted() {
        halfClosed = true;
        if (!ended && unanswered == 0) {
            end();
            out.onCompleted();
        }
    }
}
