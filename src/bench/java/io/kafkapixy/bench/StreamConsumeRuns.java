package io.kafkapixy.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.kafkapixy.stream.v1.ConsumeRequest;
import io.kafkapixy.stream.v1.ConsumeResponse;
import io.kafkapixy.stream.v1.Message;
import io.kafkapixy.stream.v1.MessageRef;
import io.kafkapixy.stream.v1.PixyStreamGrpc;

/**
 * Streaming Consume over a {@link FilledTopic} in a fresh group: each stream starts with {@link #CREDITS} credits and,
 * for every {@link #BATCH} messages it gets, sends one request acking them and granting as many credits again (a
 * flusher sends a partial batch every {@link #FLUSH_MS} ms, so the stream never waits on a batch that cannot fill).
 * Every message is acked; the rate counts messages delivered in the window, which opens after the warm-up or once a
 * quarter of the topic has been read, whichever comes first: streams read a topic filled for the unary rows in a second
 * or two, and would otherwise drain it before the window opened.
 */
final class StreamConsumeRuns {

    static final int CREDITS = 1024;
    static final int BATCH = 64;
    static final long FLUSH_MS = 20;

    private StreamConsumeRuns() {
    }

    /** The measured window: opened once, by the warm-up's end or by a quarter of the topic read. */
    static final class Window {
        private final long plannedStart;
        private final long earlyAfter;
        private final long duration;
        private final AtomicLong start = new AtomicLong();

        Window(long plannedStart, long earlyAfter, long duration) {
            this.plannedStart = plannedStart;
            this.earlyAfter = earlyAfter;
            this.duration = duration;
        }

        /** Opens the window at {@code now} when the warm-up is over or {@code read} messages end it early. */
        void maybeOpen(long now, long read) {
            if (start.get() == 0 && (now >= plannedStart || read >= earlyAfter)) {
                start.compareAndSet(0, now);
            }
        }

        boolean open() {
            return start.get() != 0;
        }

        boolean contains(long now) {
            long s = start.get();
            return s != 0 && now >= s && now <= s + duration;
        }

        long start() {
            return start.get();
        }

        long end() {
            return start.get() + duration;
        }
    }

    static ClosedLoop.Result run(BenchContext ctx, FilledTopic topic, String group, int streams) throws Exception {
        Window window = new Window(System.nanoTime() + ctx.options.warmup().toNanos(), topic.messages() / 4,
                ctx.options.duration().toNanos());
        AtomicLong inWindow = new AtomicLong();
        AtomicLong total = new AtomicLong();
        AtomicLong drainedAt = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        List<Stream> all = new ArrayList<>();
        for (int s = 0; s < streams; s++) {
            Stream stream = new Stream(ctx, topic, group, window, inWindow, total, drainedAt, firstError);
            all.add(stream);
        }
        Thread flusher = Thread.ofPlatform().daemon().name("stream-flush").start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                all.forEach(Stream::flush);
                try {
                    Thread.sleep(FLUSH_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        while (!window.open()) {
            window.maybeOpen(System.nanoTime(), total.get());
            Thread.sleep(5);
        }
        CpuMeter.Snapshot cpuStart = ctx.cpu.snapshot();
        long measureStart = window.start();
        long deadline = window.end();
        while (System.nanoTime() < deadline && drainedAt.get() == 0) {
            Thread.sleep(50);
        }
        CpuMeter.Snapshot cpuEnd = ctx.cpu.snapshot();
        long end = drainedAt.get() != 0 ? Math.min(drainedAt.get(), deadline) : deadline;
        flusher.interrupt();
        flusher.join();
        all.forEach(Stream::flush);
        all.forEach(Stream::close);
        for (Stream s : all) {
            s.end.get(60, TimeUnit.SECONDS);
        }
        double seconds = Math.max(0, (end - measureStart) / 1e9);
        return new ClosedLoop.Result(streams, inWindow.get(), 0, firstError.get() == null ? 0 : 1, total.get(),
                seconds, new LatencyRecorder(), firstError.get(), drainedAt.get() != 0, CpuMeter.between(cpuStart,
                cpuEnd));
    }

    /** One stream: counts what comes, acks and re-credits it in batches. */
    private static final class Stream implements ClientResponseObserver<ConsumeRequest, ConsumeResponse> {
        final CompletableFuture<Void> end = new CompletableFuture<>();
        private final Window window;
        private final long topicSize;
        private final AtomicLong inWindow;
        private final AtomicLong total;
        private final AtomicLong drainedAt;
        private final AtomicReference<String> firstError;
        private ClientCallStreamObserver<ConsumeRequest> requests;
        // guarded by this
        private ConsumeRequest.Builder pending = ConsumeRequest.newBuilder();
        private int pendingCount;
        private boolean closed;

        Stream(BenchContext ctx, FilledTopic topic, String group, Window window, AtomicLong inWindow,
               AtomicLong total, AtomicLong drainedAt, AtomicReference<String> firstError) {
            this.window = window;
            this.topicSize = topic.messages();
            this.inWindow = inWindow;
            this.total = total;
            this.drainedAt = drainedAt;
            this.firstError = firstError;
            PixyStreamGrpc.newStub(ctx.channel()).consume(this);
            synchronized (this) {
                requests.onNext(ConsumeRequest.newBuilder().setGroup(group).addTopics(topic.name())
                        .setCredits(CREDITS).build());
            }
        }

        @Override
        public void beforeStart(ClientCallStreamObserver<ConsumeRequest> requestStream) {
            this.requests = requestStream;
        }

        @Override
        public void onNext(ConsumeResponse rs) {
            long now = System.nanoTime();
            int n = rs.getMessagesCount();
            long before = total.getAndAdd(n);
            window.maybeOpen(now, before + n);
            if (window.contains(now)) {
                inWindow.addAndGet(n);
            }
            if (before < topicSize && before + n >= topicSize) {
                drainedAt.compareAndSet(0, now);
            }
            synchronized (this) {
                for (Message m : rs.getMessagesList()) {
                    pending.addAcks(MessageRef.newBuilder().setPartition(m.getPartition()).setOffset(m.getOffset()));
                    if (++pendingCount >= BATCH) {
                        flushLocked();
                    }
                }
            }
        }

        synchronized void flush() {
            if (pendingCount > 0) {
                flushLocked();
            }
        }

        private void flushLocked() {
            if (closed) {
                return;
            }
            requests.onNext(pending.setCredits(pendingCount).build());
            pending = ConsumeRequest.newBuilder();
            pendingCount = 0;
        }

        synchronized void close() {
            if (!closed) {
                closed = true;
                requests.onCompleted();
            }
        }

        @Override
        public void onError(Throwable t) {
            firstError.compareAndSet(null, String.valueOf(t));
            end.complete(null);
        }

        @Override
        public void onCompleted() {
            end.complete(null);
        }
    }
}
