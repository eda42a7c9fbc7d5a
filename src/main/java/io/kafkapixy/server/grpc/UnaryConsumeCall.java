package io.kafkapixy.server.grpc;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.kafkapixy.consumer.PendingConsume;
import io.kafkapixy.consumer.Receiver;

/**
 * One {@code ConsumeNAck} call as its parked request sees it: a message is handed to it only while the call can still
 * deliver it, counts as delivered (and, with auto-ack, acked) only once grpc-java has closed the call cleanly, and is
 * offered again at once when the call is cancelled instead (the client cancelled it, its deadline passed, the
 * connection broke).
 *
 * <p>A call with a deadline takes no message in the last part of its time: three quarters of what it had on arrival,
 * at least {@link #MIN_MARGIN} and at most {@link #MAX_MARGIN}. What the server knows of the deadline is the time left
 * when the client sent the call, rounded up to the millisecond by some clients; the answer then needs the way back
 * and the client's own threads to read it before its timer fires, and on a busy host that took milliseconds
 * (measured with Python's grpcio at 5 ms deadlines: messages answered with up to 4 ms of the server's deadline left
 * were lost to a client that had already given up). Such a call stays parked without a message and ends as it would
 * have: at its deadline, while the next call takes the message at once. A call that grpc-java closes only after its
 * deadline has passed is not counted as delivered either: its message is offered again.
 */
final class UnaryConsumeCall implements Receiver {

    /** The least of a call's time that is kept back for its answer to travel: a shorter call takes no message. */
    static final Duration MIN_MARGIN = Duration.ofMillis(3);
    /** The most of a call's time that is kept back for its answer to travel. */
    static final Duration MAX_MARGIN = Duration.ofMillis(50);

    private final ServerCallStreamObserver<?> call;
    /** {@link System#nanoTime()} after which the call takes no message; meaningless without a deadline. */
    private final long lastHandOver;
    private final Deadline deadline;
    private PendingConsume pending;
    private boolean cancelled;
    /** The call was answered with an error although a message was handed to it. */
    private boolean answeredWithout;

    private UnaryConsumeCall(ServerCallStreamObserver<?> call, Deadline deadline) {
        this.call = call;
        this.deadline = deadline;
        long remaining = deadline == null ? 0 : Math.max(0, deadline.timeRemaining(TimeUnit.NANOSECONDS));
        this.lastHandOver = System.nanoTime() + remaining - margin(remaining);
    }

    /** Of {@code remainingNanos} on arrival, how much is kept back. */
    static long margin(long remainingNanos) {
        return Math.min(Math.max(remainingNanos / 4 * 3, MIN_MARGIN.toNanos()), MAX_MARGIN.toNanos());
    }

    /**
     * Watches the call {@code out} answers. Only on the thread grpc-java calls the service method on, before it
     * returns: the call's handlers cannot be set later.
     */
    static UnaryConsumeCall watch(StreamObserver<?> out) {
        if (!(out instanceof ServerCallStreamObserver<?> call)) {
            throw new IllegalArgumentException("not a server call: " + out);
        }
        UnaryConsumeCall c = new UnaryConsumeCall(call, Context.current().getDeadline());
        call.setOnCancelHandler(c::cancelled);
        call.setOnCloseHandler(c::closed);
        return c;
    }

    @Override
    public boolean canReceive() {
        return !call.isCancelled() && (deadline == null || System.nanoTime() - lastHandOver < 0);
    }

    /** The call's request is parked: a cancel from now on (or before) takes it out. */
    void parked(PendingConsume p) {
        boolean gone;
        synchronized (this) {
            pending = p;
            gone = cancelled;
        }
        if (gone) {
            p.cancel();
        }
    }

    private void cancelled() {
        PendingConsume p;
        synchronized (this) {
            cancelled = true;
            p = pending;
        }
        // outside this object's lock: the group's lock is taken here, and the group calls back under it
        if (p != null) {
            p.cancel();
        }
    }

    /**
     * The message handed to the call is not in its answer (it could not be encoded): it comes back when the call
     * closes. Not given back here, as this runs where the message was handed over, under its group's lock.
     */
    synchronized void answeredWithout() {
        answeredWithout = true;
    }

    /** grpc-java closed the call cleanly: what it answered was sent whole (in time, if it had a deadline). */
    private void closed() {
        PendingConsume p;
        boolean without;
        synchronized (this) {
            p = pending;
            without = answeredWithout;
        }
        if (p == null) {
            return;
        }
        if (without || deadline != null && deadline.isExpired()) {
            p.cancel();
        } else {
            p.delivered();
        }
    }
}
