package io.kafkapixy.consumer.share;

import io.kafkapixy.consumer.StreamTurns;

import java.time.Duration;
import java.util.Iterator;
import java.util.List;

import io.kafkapixy.errors.PixyException;
import org.apache.kafka.clients.consumer.AcknowledgeType;

/**
 * The streams of a {@link ShareTopic}, under its lock: attaching and detaching them, handing them records for their
 * credits, and their nacks.
 */
final class ShareStreams {

    private final ShareTopic t;
    private final StreamTurns<ShareStream, Acquired> turns = new StreamTurns<>();

    ShareStreams(ShareTopic topic) {
        this.t = topic;
    }

    /** Serves {@code s} from now on; false when the topic is gone (the caller makes a new one). */
    boolean attach(ShareStream s) {
        t.lock.lock();
        try {
            if (t.shutdownDeadline != null) {
                throw PixyException.shuttingDown();
            }
            if (t.gone) {
                return false;
            }
            t.streams.add(s);
            t.dispatch();
            return true;
        } finally {
            t.lock.unlock();
        }
    }

    /**
     * The stream ended: what it held is released to the broker at once (delivered again, to any client), and what it
     * was handed and never sent goes to the next client here as the same delivery. Returns how many records that was.
     */
    int detach(ShareStream s) {
        t.lock.lock();
        try {
            if (!t.streams.remove(s)) {
                return 0;
            }
            int givenBack = 0;
            for (Iterator<Acquired> it = t.out.values().iterator(); it.hasNext(); ) {
                Acquired a = it.next();
                if (a.stream != s) {
                    continue;
                }
                it.remove();
                givenBack++;
                if (s.neverSent(a)) {
                    a.stream = null;
                    a.handedAt = null;
                    t.unhanded.addFirst(a);
                    t.meters.returned();
                } else if (!t.letters.instead(a)) {
                    a.settlement = AcknowledgeType.RELEASE;
                }
            }
            t.dispatch();
            t.goneIfUnused();
            return givenBack;
        } finally {
            t.lock.unlock();
        }
    }

    /**
     * A stream gives back a record it holds: released to the broker after {@code delay} (the record stays locked here
     * meanwhile; its lock running out first releases it then). False when the stream does not hold it.
     */
    boolean nack(ShareStream s, int partition, long offset, Duration delay) {
        t.lock.lock();
        try {
            Acquired a = t.out.get(new Acquired.Key(partition, offset));
            if (a == null || a.stream != s) {
                return false;
            }
            t.out.remove(a.key());
            s.released(a);
            if (delay.isZero()) {
                if (!t.letters.instead(a)) {
                    a.settlement = AcknowledgeType.RELEASE;
                }
            } else {
                a.releaseAt = t.clock.instant().plus(delay);
            }
            t.changed.signalAll();
            return true;
        } finally {
            t.lock.unlock();
        }
    }

    /** Under the lock: hands waiting records to the streams with credits, one each in turn. */
    void dispatch() {
        turns.serve(t.streams, s -> {
            if (t.unhanded.isEmpty()) {
                return null;
            }
            Acquired a = t.handOut();
            a.stream = s;
            return a;
        });
    }

    /** Under the lock: ends every stream with {@code reason}; what they held is released. */
    void endStreams(PixyException reason) {
        for (ShareStream s : List.copyOf(t.streams)) {
            int givenBack = detach(s);
            s.endedByProxy(t, reason, givenBack);
        }
    }
}
