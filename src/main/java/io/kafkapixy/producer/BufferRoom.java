package io.kafkapixy.producer;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleSupplier;

/**
 * Whether the producer's buffer ({@code buffer.memory}) has room for the largest message, so that a send cannot wait
 * for space. Reading the producer's own meter takes the buffer's lock, which its I/O thread takes for every batch it
 * frees; so the meter is read only when an estimate says room may be short: the last reading less what every send
 * since may have taken (a new batch, or the message if it is larger). Freed batches only add room, so the estimate
 * never says more than there is, except by sends under way while it is read; the margin (twice the largest message)
 * covers those, as it covered a send racing the reading before.
 *
 * <p>Thread-safe.
 */
final class BufferRoom {

    private final DoubleSupplier exact;
    private final long needed;
    private final int batchBytes;
    private final AtomicLong estimate = new AtomicLong(Long.MIN_VALUE);

    /**
     * @param exact      the buffer's free bytes now ({@link Double#MAX_VALUE} when the producer has no such meter)
     * @param needed     the room that must be left for a send not to wait
     * @param batchBytes what a send that opens a batch takes ({@code batch.size})
     */
    BufferRoom(DoubleSupplier exact, long needed, int batchBytes) {
        this.exact = exact;
        this.needed = needed;
        this.batchBytes = batchBytes;
    }

    boolean enough() {
        if (estimate.get() >= needed) {
            return true;
        }
        double room = exact.getAsDouble();
        long reading = room >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) room;
        estimate.set(reading);
        return reading >= needed;
    }

    /** Counts a send of {@code messageBytes} before it is handed to the producer. */
    void charge(int messageBytes) {
        estimate.addAndGet(-Math.max(batchBytes, messageBytes));
    }
}
