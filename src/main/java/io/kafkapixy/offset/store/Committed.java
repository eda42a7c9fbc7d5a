package io.kafkapixy.offset.store;

/** A group's committed offset of a partition as Kafka stores it; -1 when there is none. */
public record Committed(long offset, String metadata) {

    public static final Committed NONE = new Committed(-1, "");
}
