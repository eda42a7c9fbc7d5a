package io.kafkapixy.bench;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;

import com.google.protobuf.ByteString;

/**
 * The 1 KiB message values: slices at random offsets of a 16 MiB block of random alphanumeric text, so consecutive
 * messages differ (identical values would let the producer's snappy compression shrink a batch to almost nothing,
 * for the proxy and the raw client alike) and making one costs a 1 KiB copy. Text, because REST takes it as
 * {@code text/plain}. Thread-safe.
 */
final class Payloads {

    static final int SIZE = 1024;
    private static final int BLOCK = 16 << 20;
    private static final byte[] ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".getBytes(StandardCharsets.US_ASCII);

    private final byte[] block = new byte[BLOCK];

    Payloads() {
        Random random = new Random(42);
        for (int i = 0; i < BLOCK; i++) {
            block[i] = ALPHABET[random.nextInt(ALPHABET.length)];
        }
    }

    byte[] bytes() {
        int offset = offset();
        byte[] value = new byte[SIZE];
        System.arraycopy(block, offset, value, 0, SIZE);
        return value;
    }

    ByteString byteString() {
        return ByteString.copyFrom(block, offset(), SIZE);
    }

    private static int offset() {
        return ThreadLocalRandom.current().nextInt(BLOCK - SIZE);
    }
}
