package io.kafkapixy.server.http;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.kafkapixy.consumer.AckMode;
import io.kafkapixy.errors.GoStrings;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.proxy.GroupNames;

/** The {@code group} and ack parameters of consume and ack requests, with the original's rules and texts. */
final class ConsumeParams {

    private ConsumeParams() {
    }

    /**
     * Exactly one {@code group}, which must be a valid group name (this project refuses an empty one).
     *
     * @throws PixyException {@code BAD_REQUEST}
     */
    static String group(RequestParams params) {
        List<byte[]> values = params.allBytes("group");
        if (values.size() != 1) {
            throw PixyException.badRequest("one consumer group is expected, but " + values.size() + " provided");
        }
        String group;
        try {
            group = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(values.getFirst()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw PixyException.badRequest("consumer group must be valid UTF-8");
        }
        GroupNames.validate(group);
        return group;
    }

    /**
     * The ack of a consume request ({@code ackPartition}/{@code ackOffset}) or of an ack request
     * ({@code partition}/{@code offset}), in the original's order: {@code noAck} wins; both or neither must be
     * given; a value must be a base-10 number; neither means auto-ack. On a consume request a syntactically valid
     * negative value means no ack (the original's quirk); on an ack request it gets 400 (the original answers 500).
     */
    static AckMode ack(RequestParams params, String partitionName, String offsetName, boolean consumeRequest) {
        if (params.has("noAck")) {
            return AckMode.NONE;
        }
        boolean hasPartition = params.has(partitionName);
        boolean hasOffset = params.has(offsetName);
        if (!hasPartition && !hasOffset) {
            return AckMode.AUTO;
        }
        if (hasPartition != hasOffset) {
            throw PixyException.badRequest(partitionName + " and " + offsetName
                                           + " either both should be provided or neither");
        }
        long partition = parse(params, partitionName, 32);
        long offset = parse(params, offsetName, 64);
        if (partition < 0 || offset < 0) {
            if (consumeRequest) {
                return AckMode.NONE;
            }
            throw PixyException.badRequest(partition < 0 ? "invalid ack: bad partition: " + partition
                    : "invalid ack: bad offset: " + offset);
        }
        return AckMode.explicit((int) partition, offset);
    }

    /** Go's {@code strconv.ParseInt(v, 10, bits)} of the first value, with Go's error texts. */
    private static long parse(RequestParams params, String name, int bits) {
        List<String> values = params.all(name);
        String v = values.getFirst();
        String rendered = "bad " + name + ": [" + String.join(" ", values) + "]: strconv.ParseInt: parsing "
                          + GoStrings.quote(v);
        if (!v.matches("[+-]?[0-9]+")) {
            throw PixyException.badRequest(rendered + ": invalid syntax");
        }
        try {
            long n = Long.parseLong(v.startsWith("+") ? v.substring(1) : v);
            if (bits == 32 && (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE)) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw PixyException.badRequest(rendered + ": value out of range");
        }
    }
}
