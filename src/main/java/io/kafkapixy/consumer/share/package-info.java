/**
 * Share groups (Kafka 4.1+, KIP-932), one kind of group behind {@link io.kafkapixy.consumer.GroupKind}: the broker
 * keeps acks, delivery counts and redeliveries; this instance keeps only the records its share consumers acquired.
 *
 * <p>Threads and locks: {@link io.kafkapixy.consumer.share.ShareGroups} is thread-safe and holds a
 * {@link io.kafkapixy.consumer.share.ShareTopic} per group and topic with clients here. Each ShareTopic's one lock
 * guards its parked requests, its streams, its acquired records ({@link io.kafkapixy.consumer.share.Acquired}) and its
 * pool of consumers; nothing under it calls Kafka. Each {@code KafkaShareConsumer} has exactly one owning thread
 * ({@link io.kafkapixy.consumer.share.ShareWorker}), which asks its topic what to do next
 * ({@link io.kafkapixy.consumer.share.ShareTurns}) and does it outside the lock. Lock order: a topic's lock, then a
 * stream's monitor. What both kinds of group share (parked requests, stream turns, deadlines, meters) lives in
 * {@code io.kafkapixy.consumer}. See docs/share-groups.md.
 */
package io.kafkapixy.consumer.share;
