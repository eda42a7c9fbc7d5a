package io.kafkapixy.consumer;

/**
 * What the consumers of one cluster report. Implementations are thread-safe and cheap: they are called from request
 * threads and from the groups' owning threads, under the group's lock.
 */
public interface ConsumerMetrics {

    /** How a consume request ended. */
    enum Outcome {
        MESSAGE, LONG_POLL_TIMEOUT, TOO_MANY_REQUESTS, ERROR
    }

    /**
     * The meters of one group's topic on this instance, for one holder (a member's topic state): members of the same
     * group share them, and they go when every holder has called {@link Topic#remove()}. {@code mode} is how the
     * group is coordinated: {@code kafka}, {@code zookeeper} or {@code share}.
     */
    Topic topic(String group, String topic, String mode);

    /** The settings alerts compare with: {@code consumer.ack_timeout} and {@code consumer.max_retries}. */
    default void settings(java.time.Duration ackTimeout, int maxRetries) {
    }

    /** This instance's partitions of {@code group} changed (assigned, revoked or lost). */
    void rebalanced(String group);

    /** No member of {@code group} is left on this instance: its group-level meters go. */
    default void groupGone(String group) {
    }

    /** The meters of one group-topic. */
    interface Topic {

        Topic NONE = new Topic() {
            @Override
            public void request(Outcome outcome) {
            }

            @Override
            public void acked() {
            }

            @Override
            public void redelivered() {
            }

            @Override
            public void dropped() {
            }

            @Override
            public void returned() {
            }

            @Override
            public void state(int parked, int unacked, long lag, java.time.Instant oldestOut) {
            }

            @Override
            public void remove() {
            }
        };

        void request(Outcome outcome);

        void acked();

        /** {@code n} acks at once. */
        default void acked(int n) {
            for (int i = 0; i < n; i++) {
                acked();
            }
        }

        /** An offer whose ack did not come in time was given to a request again. */
        void redelivered();

        /** An offer retried more than {@code max_retries} times was dropped as if acked. */
        void dropped();

        /** A message handed to a request whose client was gone came back, offered again at once. */
        void returned();

        /** A client rejected a message: never to be delivered again (share groups), or acked and counted here. */
        default void rejected() {
        }

        /** Share groups: a message was released to the broker, to be delivered again (a nack, a shutdown). */
        default void released() {
        }

        /** Share groups: a message's record lock ran out before its ack; the broker delivers it again. */
        default void lockExpired() {
        }

        /** A client holding a message restarted its {@code ack_timeout}. */
        default void renewed() {
        }

        /** A message was written to the dead-letter topic (and is then settled). */
        default void deadLettered(DeadLetter.Reason reason) {
        }

        /** The dead-letter topic refused a message: it stays unsettled and is tried again. */
        default void deadLetterFailed() {
        }

        /** A message was handed out for its {@code attempt}-th delivery, 2 or more. */
        default void redeliveredAt(int attempt) {
            redelivered();
        }

        /**
         * A snapshot from the owning thread: requests parked, messages offered and not acked, how far the committed
         * offsets are behind the partitions' ends (summed over the partitions held here), and when the message out
         * the longest without an ack was first handed out (null: none is out).
         */
        void state(int parked, int unacked, long lag, java.time.Instant oldestOut);

        /** Share groups: when the record out the longest without an ack was acquired (null: none is out). */
        default void oldestOut(java.time.Instant since) {
        }

        /**
         * The holder is done with the topic; once no holder is left the meters go too, so labels stay bounded.
         * Call once per {@link ConsumerMetrics#topic}.
         */
        void remove();
    }
}
