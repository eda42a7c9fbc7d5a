package io.kafkapixy.admin;

/** One partition of set-offsets: the offset and metadata to store, as given. */
public record OffsetUpdate(int partition, long offset, String metadata) {
}
