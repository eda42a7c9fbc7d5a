package io.kafkapixy.consumer.share;

import io.kafkapixy.consumer.InFlight;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What a {@link ShareTopic} holds, copied for {@link InFlight}. */
final class ShareTopicView {

    private ShareTopicView() {
    }

    /**
     * Under the topic's lock: the records acquired here and not settled at the broker yet, oldest first within
     * {@code rows}: {@code out} with a client, {@code waiting} for one, {@code dead_lettering} (its dead letter being
     * written), {@code nacked} (held until its release), {@code settling} (settled, the broker's answer not in). Each
     * stream's count of records out with it is added to {@code heldByStream}.
     */
    static InFlight.Topic of(ShareTopic t, InFlight.Rows rows, Map<ShareStream, Integer> heldByStream) {
        Instant now = t.clock.instant();
        Set<Acquired> all = Collections.newSetFromMap(new IdentityHashMap<>());
        t.pool.forEach(w -> all.addAll(w.held));
        all.addAll(t.out.values());
        t.unhanded.forEach(all::add);
        List<Acquired> oldestFirst = new ArrayList<>(all);
        oldestFirst.sort(Comparator.comparing((Acquired a) -> a.acquiredAt));
        List<InFlight.Message> acquired = new ArrayList<>();
        for (Acquired a : oldestFirst) {
            boolean isOut = t.out.get(a.key()) == a;
            if (isOut && a.stream != null) {
                heldByStream.merge(a.stream, 1, Integer::sum);
            }
            if (rows.take()) {
                String where = isOut ? "out" : t.unhanded.contains(a) ? "waiting" : a.lettering ? "dead_lettering"
                        : a.settlement == null && a.releaseAt != null ? "nacked" : "settling";
                acquired.add(a.view(now, where, rows.showMessages(), t.config.ackTimeout()));
            }
        }
        acquired.sort(Comparator.comparingInt(InFlight.Message::partition)
                .thenComparingLong(InFlight.Message::offset));
        return new InFlight.Topic(t.topic, t.waiting.size(), 0, List.of(), t.pool.size(), List.copyOf(acquired));
    }
}
