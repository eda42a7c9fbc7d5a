package io.kafkapixy.consumer;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * A message on its way to the dead-letter topic ({@code consumer.dead_letter_topic}): the message as a client got it,
 * with headers that say where it came from and why (see docs/consuming.md, "Dead-letter topic"). Both kinds of group
 * write the same record.
 *
 * @param deliveries how many times it was handed to clients of the group, the last one included
 * @param at         when it was given up on
 */
public record DeadLetter(String group, ConsumedMessage message, Reason reason, int deliveries, Instant at) {

    /** The header names, written once here: every value is UTF-8 text (numbers in decimal, the time in RFC 3339). */
    public static final String TOPIC = "kafkapixy-dlt-original-topic";
    public static final String PARTITION = "kafkapixy-dlt-original-partition";
    public static final String OFFSET = "kafkapixy-dlt-original-offset";
    public static final String GROUP = "kafkapixy-dlt-original-group";
    public static final String REASON = "kafkapixy-dlt-reason";
    public static final String DELIVERIES = "kafkapixy-dlt-deliveries";
    public static final String TIME = "kafkapixy-dlt-time";

    /** Why a message was dead-lettered, as its {@link #REASON} header and the meters' {@code reason} label say. */
    public enum Reason {
        /** Offered {@code max_retries} + 1 times without an ack. */
        RETRIES_EXHAUSTED("retries_exhausted"),
        /** A client rejected it. */
        REJECTED("rejected");

        private final String label;

        Reason(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /**
     * The dead-letter topic's name for a message of {@code topic}: {@code template} with every {@code {topic}}
     * replaced.
     */
    public static String topicName(String template, String topic) {
        return template.replace("{topic}", topic);
    }

    /** The message's own headers, in order, then the origin headers above. */
    public List<Header> headers() {
        List<Header> all = new ArrayList<>(message.headers().size() + 7);
        all.addAll(message.headers());
        all.add(text(TOPIC, message.topic()));
        all.add(text(PARTITION, Integer.toString(message.partition())));
        all.add(text(OFFSET, Long.toString(message.offset())));
        all.add(text(GROUP, group));
        all.add(text(REASON, reason.label()));
        all.add(text(DELIVERIES, Integer.toString(deliveries)));
        all.add(text(TIME, at.toString()));
        return all;
    }

    private static Header text(String name, String value) {
        return new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
    }
}
