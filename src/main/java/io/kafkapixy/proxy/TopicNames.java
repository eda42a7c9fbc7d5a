package io.kafkapixy.proxy;

import io.kafkapixy.errors.PixyException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;

/**
 * Rejects topic names Kafka would refuse (empty, {@code .} or {@code ..}, over 249 characters, characters outside
 * {@code [a-zA-Z0-9._-]}) with 400 / INVALID_ARGUMENT before any Kafka call; the original answers some of them with a
 * server error. A valid topic that does not exist keeps the original's answers.
 */
public final class TopicNames {

    private TopicNames() {
    }

    /** @throws PixyException {@code BAD_REQUEST} with Kafka's own explanation */
    public static void validate(String topic) {
        try {
            Topic.validate(topic);
        } catch (InvalidTopicException e) {
            throw PixyException.badRequest(e.getMessage());
        }
    }
}
