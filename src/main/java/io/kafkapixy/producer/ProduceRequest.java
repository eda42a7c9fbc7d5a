package io.kafkapixy.producer;

import java.util.List;

import org.apache.kafka.common.header.Header;

/** One message to produce, as decoded by a transport. {@code value} is never null (empty means zero-length). */
public record ProduceRequest(String topic, MessageKey key, byte[] value, List<Header> headers) {

    public ProduceRequest {
        headers = List.copyOf(headers);
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
