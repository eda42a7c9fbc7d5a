package io.kafkapixy.security;

import java.util.Locale;
import java.util.Optional;

/**
 * What a named client may do, in Kafka's ACL words: {@code write} (produce), {@code read} (consume, ack, nack,
 * reject, renew), {@code describe} (topics, metadata, consumers, offsets read), {@code alter} (offsets set),
 * {@code all}. As in Kafka, {@code read}, {@code write} and {@code alter} on a resource also allow describing it.
 */
public enum Operation {
    WRITE, READ, DESCRIBE, ALTER, ALL;

    /** The operation named {@code text} in a clients file (lower case), if any. */
    static Optional<Operation> named(String text) {
        for (Operation o : values()) {
            if (o.word().equals(text)) {
                return Optional.of(o);
            }
        }
        return Optional.empty();
    }

    /** As a clients file and a refusal's log line write it. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether being granted this operation allows {@code wanted}. */
    boolean allows(Operation wanted) {
        return this == ALL || this == wanted || (wanted == DESCRIBE && this != DESCRIBE);
    }
}
