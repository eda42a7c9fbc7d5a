package io.kafkapixy.consumer.share;

import java.util.Iterator;
import java.util.LinkedList;
import java.util.ListIterator;
import java.util.stream.Stream;

/**
 * The records a {@link ShareTopic}'s consumers acquired that wait for a client, next out first: in offset order within
 * each partition. Several consumers may fetch from one partition at once and their answers arrive in any order; a
 * client reading alone still gets a partition's records oldest first. Guarded by the topic's lock.
 */
final class WaitingRecords implements Iterable<Acquired> {

    private final LinkedList<Acquired> records = new LinkedList<>();

    /** Waits behind the records of its partition with lower offsets, and before those with higher ones. */
    void add(Acquired a) {
        ListIterator<Acquired> back = records.listIterator(records.size());
        while (back.hasPrevious()) {
            Acquired before = back.previous();
            if (before.record.partition() == a.record.partition() && before.record.offset() < a.record.offset()) {
                back.next();
                back.add(a);
                return;
            }
        }
        // no lower offset of its partition waits: behind the other partitions' records, before its own
        ListIterator<Acquired> front = records.listIterator();
        while (front.hasNext()) {
            if (front.next().record.partition() == a.record.partition()) {
                front.previous();
                front.add(a);
                return;
            }
        }
        records.addLast(a);
    }

    /** A record handed out whose client never got it: the next one out. */
    void addFirst(Acquired a) {
        records.addFirst(a);
    }

    /** The next record out, taken; null when none waits. */
    Acquired poll() {
        return records.pollFirst();
    }

    boolean remove(Acquired a) {
        return records.remove(a);
    }

    boolean contains(Acquired a) {
        return records.contains(a);
    }

    boolean isEmpty() {
        return records.isEmpty();
    }

    int size() {
        return records.size();
    }

    Stream<Acquired> stream() {
        return records.stream();
    }

    @Override
    public Iterator<Acquired> iterator() {
        return records.iterator();
    }
}
