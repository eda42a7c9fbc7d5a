package io.kafkapixy.server.grpc;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.kafkapixy.consumer.PendingConsume;
import io.kafkapixy.consumer.Receiver;

/**
 * One {@code ConsumeNAck} call as its parked request sees it: a message is handed to it only while the call can still
 * deliver it, and counts as delivered (and, with auto-ack, acked) only if its answer went out in time; otherwise it
 * is offered again at once.
 *
 * <p>What the server knows of a deadline is the time left when the client sent the call, rounded up by some clients;
 * the answer then needs the way back and the client's own threads to read it before its timer fires, which on a busy
 * host took milliseconds (Python's grpcio at 5 ms deadlines: most calls were cancelled by their client within 1 ms
 * before the server's deadline, a few up to 5 ms before). So:
 * <ul>
 * <li>a call takes no message once it was cancelled, nor in the last part of its time: three quarters of what it had
 * on arrival, at least {@link #MIN_MARGIN} and at most {@link #MAX_MARGIN}. Such a call stays parked without a message
 * and ends as it would have, at its deadline, while the next call takes the message at once;</li>
 * <li>the answer is in time when it was handed to grpc-java with at least {@link #CLOSE_MARGIN} of the deadline left;
 * </li>
 * <li>the message counts as delivered when the call then closes with at least {@link #CLOSE_MARGIN} left, or when it
 * was answered with half of its time or more still left and then closes or is cancelled by the server's own deadline
 * (its close was still being reported: the first answers of a new process are reported tens of milliseconds after
 * they went out). It comes back when the answer was late, or when the client cancelled the call: a client cancels
 * when its deadline passes before the answer arrived.</li>
 * </ul>
 */
final class UnaryConsumeCall implements Receiver {

    /** The least of a call's time that is kept back for its answer to travel: a shorter call takes no message. */
    static final Duration MIN_MARGIN = Duration.ofMillis(3);
    /** The most of a call's time that is kept back for its answer to travel. */
    static final Duration MAX_MARGIN = Duration.ofMillis(50);
    /** An answer handed to grpc-java with less than this left of the server's deadline is taken as too late. */
    static final Duration CLOSE_MARGIN = Duration.ofMillis(1);

    private final ServerCallStreamObserver<?> call;
    /** Null when the call has none. */
    private final Deadline deadline;
    /** {@link System#nanoTime()} after which the call takes no message; meaningless without a deadline. */
    private final long lastHandOver;
    private final Context context;
    /** The deadline's nanoseconds left on arrival; 0 without one. */
    private final long arrivalLeft;
    private PendingConsume pending;
    private boolean cancelled;
    /** How the answer went: not yet, early (half the call's time or more left), in time, too late, or without the
     *  message. */
    private Answer answer = Answer.NONE;

    enum Answer { NONE, EARLY, IN_TIME, LATE, WITHOUT_MESSAGE }

    private UnaryConsumeCall(ServerCallStreamObserver<?> call, Context context) {
        this.call = call;
        this.context = context;
        this.deadline = context.getDeadline();
        this.arrivalLeft = deadline == null ? 0 : Math.max(0, deadline.timeRemaining(TimeUnit.NANOSECONDS));
        this.lastHandOver = System.nanoTime() + arrivalLeft - margin(arrivalLeft);
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
        UnaryConsumeCall c = new UnaryConsumeCall(call, Context.current());
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

    /** The answer carrying the handed message is about to be given to grpc-java. */
    synchronized void answering() {
        answer = deadline == null ? Answer.EARLY
                : answerWith(deadline.timeRemaining(TimeUnit.NANOSECONDS), arrivalLeft);
    }

    /** An answer given with {@code leftNanos} of the deadline left, of {@code arrivalLeftNanos} on arrival. */
    static Answer answerWith(long leftNanos, long arrivalLeftNanos) {
        if (leftNanos < CLOSE_MARGIN.toNanos()) {
            return Answer.LATE;
        }
        return leftNanos >= arrivalLeftNanos / 2 ? Answer.EARLY : Answer.IN_TIME;
    }

    /** Whether the message of a call answered so counts as delivered when the call closes {@code leftNanos} early. */
    static boolean deliveredOnClose(Answer answer, long leftNanos) {
        return answer == Answer.EARLY || answer == Answer.IN_TIME && leftNanos >= CLOSE_MARGIN.toNanos();
    }

    /**
     * Whether the message of a call answered so counts as delivered when the call is cancelled, by the server's own
     * deadline or otherwise (the client, a broken connection).
     */
    static boolean deliveredOnCancel(Answer answer, boolean byServerDeadline) {
        return answer == Answer.EARLY && byServerDeadline;
    }

    /**
     * The message handed to the call is not in its answer (it could not be encoded): it comes back when the call
     * ends. Not given back here, as this runs where the message was handed over, under its group's lock.
     */
    synchronized void answeredWithout() {
        answer = Answer.WITHOUT_MESSAGE;
    }

    private void cancelled() {
        PendingConsume p;
        boolean delivered;
        synchronized (this) {
            cancelled = true;
            p = pending;
            // the server's own deadline cancels with a timeout; a client's cancel, or a broken connection, otherwise
            delivered = deliveredOnCancel(answer, context.cancellationCause() instanceof TimeoutException);
        }
        settle(p, delivered);
    }

    /** grpc-java closed the call cleanly: what it answered was sent whole. */
    private void closed() {
        PendingConsume p;
        Answer a;
        synchronized (this) {
            p = pending;
            a = answer;
        }
        settle(p, deliveredOnClose(a, deadline == null ? Long.MAX_VALUE
                : deadline.timeRemaining(TimeUnit.NANOSECONDS)));
    }

    /** Outside this object's lock: the group's lock is taken here, and the group calls back under it. */
    private static void settle(PendingConsume p, boolean delivered) {
        if (p == null) {
            return;
        }
        if (delivered) {
            p.delivered();
        } else {
            p.cancel();
        }
    }
}
