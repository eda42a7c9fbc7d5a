package io.kafkapixy.proxy;

import java.nio.charset.StandardCharsets;

import io.kafkapixy.errors.PixyException;

/**
 * Rejects consumer group names Kafka cannot take, or that contain control characters, with 400 / INVALID_ARGUMENT
 * before any Kafka call (the original accepts an empty group and then loops on ZooKeeper errors, its issue #110).
 */
public final class GroupNames {

    /** Kafka's limit on a group id: a protocol string of at most 32767 bytes. */
    static final int MAX_BYTES = Short.MAX_VALUE;

    private GroupNames() {
    }

    /** @throws PixyException {@code BAD_REQUEST} */
    public static void validate(String group) {
        if (group.isEmpty()) {
            throw PixyException.badRequest("consumer group must not be empty");
        }
        if (group.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
            throw PixyException.badRequest("consumer group must not be longer than " + MAX_BYTES + " bytes");
        }
        // a NUL or a line break in a group id breaks ZooKeeper paths, log lines and metric labels alike
        for (int i = 0; i < group.length(); i++) {
            char c = group.charAt(i);
            if (c < 0x20 || c == 0x7F) {
                throw PixyException.badRequest("consumer group must not contain control characters");
            }
        }
    }
}
