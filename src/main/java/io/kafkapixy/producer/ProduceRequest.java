package io.kafkapixy.producer;

import java.util.List;

import io.opentelemetry.context.Context;

import org.apache.kafka.common.header.Header;

/**
 * One message to produce, as decoded by a transport. {@code value} is never null (empty means zero-length);
 * {@code trace} is the trace context the request came with ({@link Context#root()} when none).
 */
public record ProduceRequest(String topic, MessageKey key, byte[] value, List<Header> headers, Context trace) {

    public ProduceRequest {
        headers = List.copyOf(headers);
    }

    /** A message produced outside any trace. */
    public ProduceRequest(String topic, MessageKey key, byte[] value, List<Header> headers) {
        this(topic, key, value, headers, Context.root());
    }

    /** Size counted against {@code producer.max_message_bytes}: key, value and headers. */
    int size() {
        int size = value.length;
        byte[] k = key.recordKey();
        if (k != null) {
            size += k.length;
        }
        for (Header h : headers) {
            size += h.key().length() + (h.value() == null ? 0 : h.value().length);
        }
        return size;
    }
}
