package io.kafkapixy.consumer;

import java.util.concurrent.CompletableFuture;

/**
 * Where dead letters are written: the cluster's {@code consumer.dead_letter_topic}, through the proxy's producer.
 * Thread-safe.
 */
public interface DeadLetters {

    /** No dead-letter topic: messages whose retries ran out are dropped and rejected ones acked, as the original. */
    DeadLetters NONE = new DeadLetters() {
        @Override
        public boolean enabled() {
            return false;
        }

        @Override
        public CompletableFuture<Void> write(DeadLetter letter) {
            return CompletableFuture.failedFuture(new IllegalStateException("no dead-letter topic"));
        }
    };

    /** Whether a dead-letter topic is set. */
    boolean enabled();

    /**
     * Writes {@code letter} to its dead-letter topic. Never blocks the caller (it may hold a group's lock); completes
     * once the brokers have the record, or with a {@link io.kafkapixy.errors.PixyException} saying why not.
     */
    CompletableFuture<Void> write(DeadLetter letter);
}
