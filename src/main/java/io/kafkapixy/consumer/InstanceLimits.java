package io.kafkapixy.consumer;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;

/**
 * What the consumers of this whole instance may hold at once, shared by every cluster, so that memory stays bounded
 * however clients spread their requests: consume requests waiting ({@code limits.max_parked_requests}) and group
 * members ({@code limits.max_groups}, each a {@code KafkaConsumer} with its threads and buffers). Beyond either, a
 * request gets 429 / {@code RESOURCE_EXHAUSTED} at once, naming the limit. The per-group-topic bound
 * ({@code consumer.channel_buffer_size}) stays as the original has it.
 *
 * <p>A place of a group that serves nobody (see {@link Retirable}) is not held against a new group: when every place
 * is taken, the new group takes the place of the one that has served nobody the longest, which leaves as it would at
 * its {@code subscription_timeout}, only sooner.
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

    /**
     * A holder of a group's place that can give the place up while it serves nobody: no request parked, no stream, no
     * message out with a client, and no request for a while.
     */
    public interface Retirable {

        /** Since when it has served nobody, or null while it serves someone (or may soon again). */
        Instant idleSince();

        /**
         * Gives the place up if it still serves nobody: from now on it takes nothing new, and it leaves its group.
         * True when it did.
         */
        boolean retire();
    }

    /** A group's place. Closing it frees the place, once, unless the place went to another group. */
    public final class GroupSlot implements Slot {
        private final AtomicBoolean held = new AtomicBoolean(true);
        private volatile Retirable holder;

        private GroupSlot() {
        }

        /** From now on the place may go to a new group while {@code h} serves nobody. */
        public void retirableBy(Retirable h) {
            holder = h;
        }

        @Override
        public void close() {
            if (held.compareAndSet(true, false)) {
                groupSlots.remove(this);
                groups.release();
            }
        }
    }

    private record Idle(GroupSlot slot, Instant since) {
    }

    /** The group places taken now. */
    private final Set<GroupSlot> groupSlots = ConcurrentHashMap.newKeySet();

    /**
     * A place for a new group: a free one, else the place of the group that has served nobody the longest, which
     * retires.
     *
     * @throws PixyException {@code INSTANCE_FULL} when every place is taken by a group that serves someone
     */
    public GroupSlot enterGroup() {
        while (!groups.tryAcquire()) {
            if (!retireTheLongestIdle()) {
                throw full(maxGroups + " consumer groups are already served by this instance (limits.max_groups)");
            }
        }
        return taken();
    }

    private GroupSlot taken() {
        GroupSlot slot = new GroupSlot();
        groupSlots.add(slot);
        return slot;
    }

    /** True when a group retired: its place is free now (unless another new group took it first). */
    private boolean retireTheLongestIdle() {
        List<Idle> idle = new ArrayList<>();
        for (GroupSlot s : groupSlots) {
            Retirable h = s.holder;
            Instant since = h == null ? null : h.idleSince();
            if (since != null) {
                idle.add(new Idle(s, since));
            }
        }
        idle.sort(Comparator.comparing(Idle::since));
        for (Idle i : idle) {
            if (i.slot.holder.retire()) {
                // the retired member no longer counts while it leaves: its place is free for the caller's next try
                i.slot.close();
                return true;
            }
        }
        return false;
    }

    private static Slot enter(Semaphore places, String why) {
        if (!places.tryAcquire()) {
            throw full(why);
        }
        return places::release;
    }

    private static PixyException full(String why) {
        return new PixyException(ErrorKind.INSTANCE_FULL, "Too many requests. " + why);
    }
}
