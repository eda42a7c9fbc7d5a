package io.kafkapixy.testing;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.kafkapixy.consumer.DeadLetter;
import io.kafkapixy.consumer.DeadLetters;

/**
 * A dead-letter topic the test answers for: each write waits until the test completes it ({@link #accept} or
 * {@link #refuse}), so what the group does before and after the brokers' answer can be seen apart.
 */
public final class FakeDeadLetters implements DeadLetters {

    /** One write: the letter and its answer, completed by the test. */
    public record Write(DeadLetter letter, CompletableFuture<Void> answer) {
    }

    public final List<Write> writes = new CopyOnWriteArrayList<>();

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public CompletableFuture<Void> write(DeadLetter letter) {
        Write w = new Write(letter, new CompletableFuture<>());
        writes.add(w);
        return w.answer;
    }

    /** The {@code n}-th write (from 0), once it was made. */
    public Write awaitWrite(int n) {
        TestKafka.Waits.until(java.time.Duration.ofSeconds(10), "dead letter " + n + " written",
                () -> writes.size() > n);
        return writes.get(n);
    }

    public void accept(int n) {
        awaitWrite(n).answer.complete(null);
    }

    public void refuse(int n) {
        awaitWrite(n).answer.completeExceptionally(new RuntimeException("topic refused"));
    }
}
