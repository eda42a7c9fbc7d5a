package io.kafkapixy.producer;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;

import io.kafkapixy.config.ProducerConfig;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.tracing.ProduceTrace;
import io.kafkapixy.tracing.Tracing;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Produces single messages to one cluster through one shared {@link Producer}, so concurrent requests are
 * aggregated into batches by kafka-clients (the original puts sync and async messages through one sarama pipeline
 * the same way).
 *
 * <p>Thread-safe; called from many request threads at once. The {@code Proxy} that created it closes it: from then
 * on every produce fails with {@code service is shutting down}, and messages already accepted are given
 * {@code producer.shutdown_timeout} to reach Kafka.
 */
public final class PixyProducer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(PixyProducer.class.getName());

    private final Producer<byte[], byte[]> kafka;
    private final TopicPartitions topics;
    private final PartitionChooser chooser;
    private final ProducerConfig config;
    private final ProducerMetrics metrics;
    /** Async messages accepted and not yet answered by Kafka. */
    private final LongAdder asyncPending = new LongAdder();
    private final int maxMessageBytes;
    private final BufferRoom bufferRoom;
    /** The producer's meter of free buffer bytes, found at first use. */
    private volatile Metric bufferAvailable;
    private volatile boolean closing;
    private final Tracing tracing;

    PixyProducer(Producer<byte[], byte[]> kafka, TopicPartitions topics, ProducerConfig config,
                 ProducerMetrics metrics) {
        this(kafka, topics, config, metrics, Tracing.off());
    }

    PixyProducer(Producer<byte[], byte[]> kafka, TopicPartitions topics, ProducerConfig config,
                 ProducerMetrics metrics, Tracing tracing) {
        this.tracing = tracing;
        this.kafka = kafka;
        this.topics = topics;
        this.chooser = PartitionChooser.of(config.partitioner());
        this.config = config;
        this.metrics = metrics;
        this.maxMessageBytes = config.maxMessageBytes();
        this.bufferRoom = new BufferRoom(this::bufferAvailable, 2L * maxMessageBytes,
                ProducerSettings.batchBytes(config));
    }

    /** A producer over {@code kafka} that looks up unknown topics through {@code admin} (which it does not own). */
    public static PixyProducer create(Producer<byte[], byte[]> kafka, Admin admin, ProducerConfig config,
                                      Duration adminTimeout, ProducerMetrics metrics, Tracing tracing) {
        PixyProducer p = new PixyProducer(kafka, new KafkaTopicPartitions(kafka, admin, adminTimeout), config,
                metrics, tracing);
        metrics.asyncPending(p.asyncPending::sum);
        return p;
    }

    /** Produces and waits until Kafka has the message (as {@code producer.required_acks} says). */
    public ProduceResult produceSync(ProduceRequest rq) {
        long start = System.nanoTime();
        try {
            Future<RecordMetadata> sent = send(rq, null);
            RecordMetadata md = sent.get();
            metrics.produced(rq.topic(), rq.size(), System.nanoTime() - start);
            return new ProduceResult(md.partition(), md.offset());
        } catch (ExecutionException e) {
            throw counted(rq.topic(), failure(rq.topic(), e.getCause()));
        } catch (PixyException e) {
            throw counted(rq.topic(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw counted(rq.topic(), new PixyException(ErrorKind.INTERNAL, "interrupted while producing", e));
        }
    }

    /** Counts a failure; under the topic's name only once the topic is known to exist, so labels stay bounded. */
    private PixyException counted(String topic, PixyException e) {
        metrics.failed(topics.known(topic) ? topic : "", e.kind());
        return e;
    }

    /**
     * Hands the message to the producer and returns once it is in the producer's buffer; later delivery failures
     * are logged, as the original does. A message that cannot even be buffered (too large, shutting down, unknown
     * topic, buffer full for {@code net.dial_timeout}) fails here, so it is never answered as accepted.
     */
    public void produceAsync(ProduceRequest rq) {
        long start = System.nanoTime();
        Future<RecordMetadata> sent;
        try {
            sent = send(rq, (md, error) -> {
                asyncPending.decrement();
                if (error != null) {
                    LOG.log(Level.WARNING, "Failed to submit message: topic={0}, error={1}", rq.topic(),
                            error.getMessage());
                    counted(rq.topic(), classify(rq.topic(), error));
                } else {
                    metrics.produced(rq.topic(), rq.size(), System.nanoTime() - start);
                }
            });
        } catch (PixyException e) {
            throw counted(rq.topic(), e);
        }
        if (sent.isDone()) {
            try {
                sent.get();
            } catch (ExecutionException e) {
                // already counted by the callback, which runs before the future completes
                throw failure(rq.topic(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PixyException(ErrorKind.INTERNAL, "interrupted while producing", e);
            }
        }
    }

    /**
     * Hands the message to the producer and returns at once; the result completes when Kafka has the message or
     * refused it, on the producer's own thread (keep what follows it short). A message that cannot be buffered fails
     * here, as in {@link #produceAsync}. Until it completes it counts as pending, like an async message.
     */
    public CompletableFuture<ProduceResult> produceLater(ProduceRequest rq) {
        CompletableFuture<ProduceResult> result = new CompletableFuture<>();
        deliver(rq, true, (produced, error) -> {
            if (error != null) {
                result.completeExceptionally(error);
            } else {
                result.complete(produced);
            }
        });
        return result;
    }

    /**
     * As {@link #produceSync}, without waiting: {@code then} gets the result, or the failure, when Kafka has the
     * message or refused it, on the producer's own thread (keep it short). A message that cannot be buffered fails
     * here instead, as in {@link #produceAsync}. Call it where waiting is not allowed only when {@link #sendsAtOnce}
     * said so just before.
     */
    public void produceThen(ProduceRequest rq, BiConsumer<ProduceResult, PixyException> then) {
        deliver(rq, false, then);
    }

    /**
     * Sends, and tells {@code then} once Kafka has the message or refused it; with {@code countPending} the message
     * counts as an async one until then.
     */
    private void deliver(ProduceRequest rq, boolean countPending, BiConsumer<ProduceResult, PixyException> then) {
        long start = System.nanoTime();
        try {
            send(rq, countPending, (md, error) -> {
                if (countPending) {
                    asyncPending.decrement();
                }
                if (error != null) {
                    then.accept(null, counted(rq.topic(), failure(rq.topic(), error)));
                } else {
                    // answered first, counted even if the answer fails
                    try {
                        then.accept(new ProduceResult(md.partition(), md.offset()), null);
                    } finally {
                        metrics.produced(rq.topic(), rq.size(), System.nanoTime() - start);
                    }
                }
            });
        } catch (PixyException e) {
            throw counted(rq.topic(), e);
        }
    }

    /**
     * Whether a message for {@code topic} goes to the producer without waiting: the topic was produced to lately
     * (its metadata is at hand) and the producer's buffer has room for the largest message. When false, a send may
     * wait for a broker or for buffer space (up to {@code net.dial_timeout}).
     */
    public boolean sendsAtOnce(String topic) {
        return !closing && topics.fresh(topic) && bufferRoom.enough();
    }

    /** Async messages (and streamed ones) accepted and not yet answered by Kafka. */
    long asyncPending() {
        return asyncPending.sum();
    }

    /** Bytes free in the producer's buffer ({@code buffer.memory}), as its own meter says; unbounded if none. */
    private double bufferAvailable() {
        Metric m = bufferAvailable;
        if (m == null) {
            m = kafka.metrics().entrySet().stream()
                    .filter(e -> e.getKey().name().equals("buffer-available-bytes")).map(Map.Entry::getValue)
                    .findFirst().orElse(null);
            if (m == null) {
                return Double.MAX_VALUE;
            }
            bufferAvailable = m;
        }
        return m.metricValue() instanceof Number n ? n.doubleValue() : Double.MAX_VALUE;
    }

    private Future<RecordMetadata> send(ProduceRequest rq, org.apache.kafka.clients.producer.Callback callback) {
        return send(rq, callback != null, callback);
    }

    /** With {@code countPending} the message counts as an async one until its callback has run. */
    private Future<RecordMetadata> send(ProduceRequest rq, boolean countPending,
                                        org.apache.kafka.clients.producer.Callback callback) {
        if (closing) {
            throw PixyException.shuttingDown();
        }
        if (rq.size() > maxMessageBytes) {
            throw PixyException.messageTooLarge();
        }
        try {
            List<PartitionInfo> partitions = topics.of(rq.topic());
            int partition = chooser.choose(rq.topic(), rq.key(), partitions);
            ProduceTrace trace = ProduceTrace.start(tracing, rq.trace(), rq.topic(), partition);
            var record = new ProducerRecord<>(rq.topic(), partition, rq.key().recordKey(), rq.value(),
                    trace.headers(rq.headers()));
            bufferRoom.charge(rq.size());
            try {
                return send(record, countPending, traced(trace, callback));
            } catch (RuntimeException e) {
                trace.failed(e);
                throw e;
            }
        } catch (RuntimeException e) {
            throw failure(rq.topic(), e);
        }
    }

    private Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, boolean countPending,
                                        org.apache.kafka.clients.producer.Callback callback) {
        if (callback == null) {
            return kafka.send(record);
        }
        if (!countPending) {
            return kafka.send(record, callback);
        }
        asyncPending.increment();
        try {
            return kafka.send(record, callback);
        } catch (RuntimeException e) {
            // thrown without calling back (e.g. producer closed)
            asyncPending.decrement();
            throw e;
        }
    }

    /** {@code callback}, after the trace ends with Kafka's answer; null when neither is there. */
    private static org.apache.kafka.clients.producer.Callback traced(ProduceTrace trace,
                                                                      org.apache.kafka.clients.producer.Callback callback) {
        if (trace == ProduceTrace.NONE) {
            return callback;
        }
        return (md, error) -> {
            if (error != null) {
                trace.failed(error);
            } else {
                trace.produced(md.offset());
            }
            if (callback != null) {
                callback.onCompletion(md, error);
            }
        };
    }

    private PixyException failure(String topic, Throwable cause) {
        if (closing) {
            return PixyException.shuttingDown();
        }
        return classify(topic, cause);
    }

    /** What went wrong, also while closing (a delivery that fails during the drain keeps its own kind). */
    private PixyException classify(String topic, Throwable cause) {
        if (cause instanceof PixyException p) {
            return p;
        }
        if (cause instanceof UnknownTopicOrPartitionException) {
            topics.forget(topic);
            return new PixyException(ErrorKind.PRODUCE_UNKNOWN_TOPIC, KafkaTopicPartitions.UNKNOWN_TOPIC_TEXT);
        }
        if (cause instanceof IllegalStateException) {
            return PixyException.shuttingDown();
        }
        // A broker or topic limit below max_message_bytes: the original answers 500 with sarama's text.
        String text = cause instanceof RecordTooLargeException ? PixyException.messageTooLarge().getMessage()
                : String.valueOf(cause.getMessage());
        return new PixyException(ErrorKind.INTERNAL, text, cause);
    }

    /** Stops accepting messages and gives those accepted {@code producer.shutdown_timeout} to be delivered. */
    @Override
    public void close() {
        closing = true;
        kafka.close(config.shutdownTimeout());
    }
}
