package io.kafkapixy.consumer;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.kafkapixy.offset.store.OffsetStore;
import io.kafkapixy.config.ConsumerConfig;
import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * This instance's member of one consumer group: one {@link Consumer} created and owned by one thread, whose
 * subscription is the set of topics with live requests here.
 *
 * <p>Three parts, each readable alone: the {@link GroupState} that requests park in and ack against, under the
 * group's one lock; the {@link MemberLoop} on the owning thread, which polls, pauses, commits and finally leaves; and
 * the {@link Handover}, which sets up partitions that come and lets go of those that leave. When the last topic
 * expires, or on {@link #shutdown()}, the member commits, leaves the group and is done; later requests get a new
 * member from {@link Consumers}. Acks are taken until the partitions are committed and gone, also while closing.
 */
final class GroupConsumer {

    private final Clock clock;
    private final GroupState state;
    private final Thread thread;
    private final Runnable onDone;
    /** Set once, under this object's monitor; read without it on every request. */
    private volatile boolean started;

    /**
     * @param revokeWaitLimit how long a revoked partition may wait for acks at most (null: only the acks' deadlines)
     * @param starts          where the member waits for its turn to do the work of starting
     * @param onDone          called once the member has left (or was shut down before it started)
     */
    GroupConsumer(String group, ConsumerConfig config, Clock clock, OffsetStore committedOffsets,
                  Supplier<Consumer<byte[], byte[]>> kafkaFactory, Membership.Factory memberships,
                  ConsumerMetrics metrics, Duration revokeWaitLimit, StartGate starts, DeadLettering letters,
                  Runnable onDone) {
        this.clock = clock;
        this.onDone = onDone;
        this.state = new GroupState(group, config, clock, metrics, letters);
        MemberLoop loop = new MemberLoop(state, config, clock, committedOffsets, kafkaFactory, memberships, metrics,
                revokeWaitLimit, starts);
        this.thread = Thread.ofPlatform().name("group-" + group).daemon().unstarted(() -> {
            try {
                loop.run();
            } finally {
                onDone.run();
            }
        });
    }

    /**
     * Parks a request for a message of {@code topic}, due at {@code arrival} + {@code long_polling_timeout}; the
     * {@code deadlines} timer answers it {@code long polling timeout} then. Returns null when this member is leaving
     * the group (the caller gets a new member). With {@code autoAck} the message is acked once the transport says it
     * was delivered; it is handed over only while {@code receiver} can take it.
     *
     * @throws PixyException too many requests, or shutting down
     */
    PendingConsume consume(String topic, Instant arrival, boolean autoAck, Receiver receiver, Deadlines deadlines) {
        WaitingRequest r = state.park(topic, arrival, autoAck, receiver);
        if (r == null) {
            return null;
        }
        if (!started) {
            startOnce();
        }
        return PendingConsume.parked(state, topic, r, deadlines);
    }

    /** Attaches a stream to its topics; false when this member is leaving (the caller gets a new member). */
    boolean attach(MessageStream stream) {
        if (!state.streams.attach(stream)) {
            return false;
        }
        if (!started) {
            startOnce();
        }
        return true;
    }

    private synchronized void startOnce() {
        if (!started) {
            started = true;
            thread.start();
        }
    }

    /** Acks a message of a partition held here, also while closing; false when the partition is not held here. */
    boolean ack(String topic, int partition, long offset) {
        return state.ack(topic, partition, offset);
    }

    /** How this member gives its place to a new group while it serves nobody. */
    InstanceLimits.Retirable retirement() {
        return new MemberRetirement(state);
    }

    /** Whether requests for {@code topic} have been taken here (its state and meters are made). */
    boolean hasTopic(String topic) {
        return state.topics.containsKey(topic);
    }

    /** The record headers of a message out with a client here; null when none is. */
    java.util.List<org.apache.kafka.common.header.Header> heldHeaders(String topic, int partition, long offset) {
        return state.locked(() -> {
            PartitionState p = state.assigned.get(new org.apache.kafka.common.TopicPartition(topic, partition));
            return p == null ? null : p.heldHeaders(offset);
        });
    }

    /** See {@link GroupState#renew}. */
    boolean renew(String topic, int partition, long offset) {
        return state.renew(topic, partition, offset);
    }

    /**
     * Rejects a message out with a client here: dead-lettered first when a dead-letter topic is set, else acked. Null
     * when it is not out with a client here; else completes once it is settled.
     */
    CompletableFuture<Void> reject(String topic, int partition, long offset) {
        return state.letters.reject(topic, partition, offset);
    }

    /** Answers parked requests {@code service is shutting down}; the owning thread then commits and leaves. */
    void shutdown() {
        state.shutdown();
        synchronized (this) {
            if (!started) {
                started = true;
                // no owning thread will close the state: streams attached meanwhile end here
                state.close(PixyException.shuttingDown());
                onDone.run();
            }
        }
    }

    int parkedRequests() {
        return state.parkedRequests();
    }

    InFlight.Group view(InFlight.Rows rows) {
        return state.view(rows);
    }

    /** True once this member takes no more requests (it is leaving the group or has left). */
    boolean isClosed() {
        return state.isClosed();
    }

    /** Waits for the owning thread to finish leaving the group; true when it did (or never started). */
    boolean awaitDone(Duration timeout) throws InterruptedException {
        if (thread.getState() == Thread.State.NEW) {
            return true;
        }
        return thread.join(timeout);
    }
}
