package io.kafkapixy.consumer;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.function.Supplier;

import io.kafkapixy.errors.PixyException;

/**
 * A topic's parked requests, in every kind of group: a FIFO queue, served oldest first, one message each, from
 * whatever source the kind has (a classic member's partitions, a share group's acquired records). What a client sees
 * of waiting is decided here once: at most {@code channel_buffer_size} + 1 wait at once (the original holds one request
 * while it queues {@code channel_buffer_size} more), a request past its deadline is answered {@code long polling
 * timeout}, and a request whose client can no longer take an answer is passed over.
 *
 * <p>Not thread-safe: guarded by the lock of the topic that owns it. Completing a result runs its transport's callbacks
 * on the calling thread; none of them parks or unparks here.
 */
public final class ParkedRequests {

    private final ArrayDeque<WaitingRequest> queue = new ArrayDeque<>();

    /** Parks {@code r} behind the others; false, parking nothing, when more than {@code limit} wait already. */
    public boolean park(WaitingRequest r, int limit) {
        if (queue.size() > limit) {
            return false;
        }
        queue.addLast(r);
        return true;
    }

    /** Takes a request that gave up out of the queue; true if it was still waiting. */
    public boolean remove(WaitingRequest r) {
        return queue.remove(r);
    }

    /**
     * Hands the parked requests messages from {@code source} (null: none now), oldest request first; requests past
     * their deadline at {@code now} are answered {@code long polling timeout} on the way. Returns false when the source
     * ran dry before every request that could take a message had one.
     */
    public boolean handOut(Instant now, Supplier<ConsumedMessage> source) {
        Iterator<WaitingRequest> it = queue.iterator();
        while (it.hasNext()) {
            WaitingRequest r = it.next();
            if (!now.isBefore(r.deadline)) {
                it.remove();
                r.result.completeExceptionally(PixyException.longPollTimeout());
                continue;
            }
            if (!r.receiver.canReceive()) {
                // its client is gone or nearly out of time: the next request gets the message
                continue;
            }
            ConsumedMessage m = source.get();
            if (m == null) {
                return false;
            }
            it.remove();
            r.result.complete(m);
        }
        return true;
    }

    /** How many parked requests could take a message now. */
    public int demand() {
        int n = 0;
        for (WaitingRequest r : queue) {
            if (r.receiver.canReceive()) {
                n++;
            }
        }
        return n;
    }

    /** Answers every parked request {@code answer}. */
    public void failAll(PixyException answer) {
        WaitingRequest r;
        while ((r = queue.pollFirst()) != null) {
            r.result.completeExceptionally(answer);
        }
    }

    public int size() {
        return queue.size();
    }

    public boolean isEmpty() {
        return queue.isEmpty();
    }
}
