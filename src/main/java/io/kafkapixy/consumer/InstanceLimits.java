package io.kafkapixy.consumer;

import java.util.concurrent.Semaphore;

import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;

/**
 * What the consumers of this whole instance may hold at once, shared by every cluster, so that memory stays bounded
 * however clients spread their requests: consume requests waiting ({@code limits.max_parked_requests}) and group
 * members ({@code limits.max_groups}, each a {@code KafkaConsumer} with its threads and buffers). Beyond either, a
 * request gets 429 / {@code RESOURCE_EXHAUSTED} at once, naming the limit. The per-group-topic bound
 * ({@code consumer.channel_buffer_size}) stays as the original has it.
 */
public final class InstanceLimits {

    private final int maxParked;
    private final int maxGroups;
    private final int maxBlocked;
    private final Semaphore parked;
    private final Semaphore groups;
    private final Semaphore blocked;

    /** Limits with as many blocking waiters as parked requests. */
    public InstanceLimits(int maxParked, int maxGroups) {
        this(maxParked, maxGroups, maxParked);
    }

    /**
     * @param maxBlocked of the parked requests, how many may wait with a thread blocked on them (REST's, each holding
     *                   its connection's thread stack and read buffer, ten times a gRPC one's memory)
     */
    public InstanceLimits(int maxParked, int maxGroups, int maxBlocked) {
        this.maxParked = maxParked;
        this.maxGroups = maxGroups;
        this.maxBlocked = maxBlocked;
        this.parked = new Semaphore(maxParked);
        this.groups = new Semaphore(maxGroups);
        this.blocked = new Semaphore(maxBlocked);
    }

    /** A place that was never taken. */
    static final Slot NO_SLOT = () -> { };

    /** A held place; closing it frees the place. */
    public interface Slot extends AutoCloseable {
        @Override
        void close();
    }

    /** @throws PixyException {@code INSTANCE_FULL} when every place for a waiting request is taken */
    Slot enterParked() {
        return enter(parked, maxParked + " consume requests are already waiting in this instance "
                             + "(limits.max_parked_requests)");
    }

    /** @throws PixyException {@code INSTANCE_FULL} when every place for a blocked waiter is taken */
    Slot enterBlocked() {
        return enter(blocked, maxBlocked + " REST consume requests are already waiting in this instance "
                              + "(limits.max_parked_rest_requests)");
    }

    /** @throws PixyException {@code INSTANCE_FULL} when every place for a group member is taken */
    public Slot enterGroup() {
        return enter(groups, maxGroups + " consumer groups are already served by this instance (limits.max_groups)");
    }

    private static Slot enter(Semaphore places, String why) {
        if (!places.tryAcquire()) {
            throw new PixyException(ErrorKind.INSTANCE_FULL, "Too many requests. " + why);
        }
        return places::release;
    }
}
