package io.kafkapixy.proxy;

import io.kafkapixy.errors.PixyException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;

/** Rejects topic names Kafka would refuse, before any Kafka call (design.md §2). */
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
