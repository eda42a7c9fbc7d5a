package io.kafkapixy.consumer;

import java.util.concurrent.Semaphore;

import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;

/**
 * How many consume requests may wait at once in this instance ({@code limits.max_parked_requests}), shared by every
 * cluster and group, so long polls cannot exhaust memory however they are spread; the per-group-topic bound
 * ({@code consumer.channel_buffer_size}) stays as the original has it.
 */
public final class ParkedLimit {

    private final int max;
    private final Semaphore slots;

    public ParkedLimit(int max) {
        this.max = max;
        this.slots = new Semaphore(max);
    }

    /** A held slot; closing it frees the slot. */
    public interface Slot extends AutoCloseable {
        @Override
        void close();
    }

    /** @throws PixyException {@code TOO_MANY_REQUESTS} at once when every slot is taken */
    public Slot enter() {
        if (!slots.tryAcquire()) {
            throw new PixyException(ErrorKind.TOO_MANY_REQUESTS, "Too many requests. " + max
                    + " consume requests are already waiting in this instance (limits.max_parked_requests)");
        }
        return slots::release;
    }
}
