package io.kafkapixy.consumer;

import java.time.Duration;

import io.kafkapixy.offset.store.Committed;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Where a newly assigned partition starts, from its committed offset and its log range. */
class InitialOffsetTest {

    @ParameterizedTest(name = "committed {0} in [{1}, {2}] fetches from {3}, tracks {4}, commits {5}")
    @CsvSource(nullValues = "none", value = {
            // committed, oldest, newest, fetch from, tracker offset, committed at once
            "none, 0, 10, 10, 10, 10",   // a new group starts at the newest offset and commits it
            "5,    0, 10, 5,  5,  none", // inside the log: as committed
            "10,   0, 10, 10, 10, none", // at the end
            "15,   0, 10, 10, 15, none", // beyond the end: fetch the end, skip up to the committed offset
            "2,    4, 10, 4,  4,  4",    // expired: the oldest, committed at once
            "-2,   4, 10, 4,  4,  4"})   // -2 means the oldest
    void startsWhereTheOriginalStarts(Long committed, long oldest, long newest, long fetchFrom, long tracked,
                                      Long commit) {
        InitialOffset start = InitialOffset.of(committed == null ? Committed.NONE : new Committed(committed, ""),
                oldest, newest, Duration.ofMinutes(5));

        assertEquals(fetchFrom, start.fetchFrom());
        assertEquals(tracked, start.tracker().offset());
        assertEquals(commit == null ? null : commit, start.commit().map(OffsetAndMetadata::offset).orElse(null));
    }
}
