package io.kafkapixy.server.grpc;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import com.google.protobuf.ByteString;
import io.kafkapixy.producer.MessageKey;
import io.kafkapixy.producer.ProduceRequest;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * A message to produce as both gRPC services carry it (the original's {@code ProdRq} fields), decoded as the original
 * decodes it: {@code key_undefined} gives no key; an empty {@code key_value} is hashed as the empty key but written as
 * a null key.
 */
final class GrpcMessages {

    private GrpcMessages() {
    }

    /**
     * A message to produce, in the trace context current on this thread: its call's ({@link GrpcTraceContext}).
     *
     * @param headerKey   a header's key, from the service's own header message
     * @param headerValue its value; proto3 cannot tell an empty value from an unset one, and the original writes null
     *                    for both, as it does for an empty {@code key_value}
     */
    static <H> ProduceRequest produceRequest(String topic, boolean keyUndefined, ByteString keyValue,
                                             ByteString message, List<H> headers, Function<H, String> headerKey,
                                             Function<H, ByteString> headerValue) {
        MessageKey key;
        if (keyUndefined) {
            key = MessageKey.ABSENT;
        } else if (keyValue.isEmpty()) {
            key = MessageKey.EMPTY_WRITTEN_AS_NULL;
        } else {
            key = MessageKey.of(keyValue.toByteArray());
        }
        List<Header> recordHeaders = new ArrayList<>(headers.size());
        for (H h : headers) {
            ByteString value = headerValue.apply(h);
            recordHeaders.add(new RecordHeader(headerKey.apply(h), value.isEmpty() ? null : value.toByteArray()));
        }
        return new ProduceRequest(topic, key, message.toByteArray(), recordHeaders,
                io.opentelemetry.context.Context.current());
    }
}
