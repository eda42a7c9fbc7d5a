package io.kafkapixy.producer;

import java.util.Arrays;

/**
 * The partitioning key of a produced message and what is written as the record key.
 *
 * <ul>
 *   <li>{@link Absent}: no key; a random partition, a null record key (REST without {@code key}, gRPC
 *       {@code key_undefined=true}).</li>
 *   <li>{@link Bytes}: hashed and written as given, including zero-length (REST {@code key=}).</li>
 *   <li>{@link EmptyWrittenAsNull}: hashed as the empty key but written as a null key. This is what the original
 *       does for a gRPC request with empty {@code key_value} and {@code key_undefined=false}.</li>
 * </ul>
 */
public sealed interface MessageKey {

    Absent ABSENT = new Absent();
    EmptyWrittenAsNull EMPTY_WRITTEN_AS_NULL = new EmptyWrittenAsNull();

    /** The bytes to hash, or null for a random partition. */
    byte[] hashBytes();

    /** The record key written to Kafka, or null. */
    byte[] recordKey();

    static MessageKey of(byte[] bytes) {
        return new Bytes(bytes);
    }

    record Absent() implements MessageKey {
        @Override
        public byte[] hashBytes() {
            return null;
        }

        @Override
        public byte[] recordKey() {
            return null;
        }
    }

    record Bytes(byte[] bytes) implements MessageKey {
        public Bytes {
            bytes = bytes.clone();
        }

        @Override
        public byte[] hashBytes() {
            return bytes;
        }

        @Override
        public byte[] recordKey() {
            return bytes;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Bytes other && Arrays.equals(bytes, other.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }

    record EmptyWrittenAsNull() implements MessageKey {
        private static final byte[] EMPTY = new byte[0];

        @Override
        public byte[] hashBytes() {
            return EMPTY;
        }

        @Override
        public byte[] recordKey() {
            return null;
        }
    }
}
