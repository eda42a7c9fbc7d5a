package io.kafkapixy.proxy;

import java.util.concurrent.CompletableFuture;

import io.kafkapixy.consumer.DeadLetter;
import io.kafkapixy.consumer.DeadLetters;
import io.kafkapixy.producer.MessageKey;
import io.kafkapixy.producer.PixyProducer;
import io.kafkapixy.producer.ProduceRequest;

/**
 * Dead letters written through the cluster's producer, as a client's produce would be: the key hashed to a partition
 * as the original hashes it (no key: a random partition), the topic created or refused as a produce's would be, and
 * the brokers' acknowledgement as {@code producer.required_acks} says.
 */
final class ProducedDeadLetters implements DeadLetters {

    private final String template;
    private final PixyProducer producer;

    ProducedDeadLetters(String template, PixyProducer producer) {
        this.template = template;
        this.producer = producer;
    }

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public CompletableFuture<Void> write(DeadLetter letter) {
        var m = letter.message();
        var rq = new ProduceRequest(DeadLetter.topicName(template, m.topic()),
                m.key() == null ? MessageKey.ABSENT : MessageKey.of(m.key()), m.value() == null ? new byte[0]
                : m.value(), letter.headers());
        CompletableFuture<Void> written = new CompletableFuture<>();
        // a send may wait for the topic's metadata or for room in the producer's buffer: never on the caller's thread
        Thread.ofVirtual().name("dead-letter").start(() -> {
            try {
                producer.produceLater(rq).whenComplete((ok, error) -> {
                    if (error != null) {
                        written.completeExceptionally(error);
                    } else {
                        written.complete(null);
                    }
                });
            } catch (RuntimeException e) {
                written.completeExceptionally(e);
            }
        });
        return written;
    }
}
