package io.kafkapixy.bench;

/**
 * A topic pre-filled once with {@code messages} values by the raw producer, read from its start by every consume run
 * (each in a fresh group), so filling is paid once.
 */
record FilledTopic(String name, long messages) {
}
