package io.kafkapixy.consumer;

import java.util.List;

/**
 * A copy of what this instance holds for its consumer groups at one moment (see docs/operations.md, "In flight"):
 * per group and topic the partitions held here, the messages out with clients and not acked, the parked requests and
 * the open streams; in share groups the records this instance acquired. Each group's part is copied under that
 * group's lock and nothing else is done under it, so a reader never holds up its traffic for more than the copy.
 *
 * <p>Ages and due times are in milliseconds relative to the moment of the copy. Message keys and values are
 * included only when asked for: they may be private.
 */
public final class InFlight {

    private InFlight() {
    }

    /**
     * One member of a group on this instance. {@code mode} is {@code kafka}, {@code zookeeper} or {@code share};
     * {@code state} is {@code serving}, {@code leaving} (it takes acks, no new requests: a new member takes those) or
     * {@code shutting_down}.
     */
    public record Group(String group, String mode, String state, List<Topic> topics, List<Stream> streams) {
    }

    /**
     * One topic of a group. {@code partitionCount} is the topic's number of partitions as this member last saw it (0
     * when not known yet); {@code partitions} lists those held here, then the others ({@code owned} false). In a
     * share group {@code partitions} is empty and {@code acquired} lists the records its {@code consumers} (share
     * consumers) hold.
     */
    public record Topic(String topic, int parkedRequests, int partitionCount, List<Partition> partitions,
                        int consumers, List<Message> acquired) {
    }

    /**
     * A partition of a group's topic. For one held here ({@code owned}): {@code committedOffset} is the offset last
     * committed or being committed (-1 none yet), {@code ackedOffset} what the next commit carries (everything below
     * it acked) with {@code sparseAcks} the acks above it, {@code nextOffset} the next offset to fetch,
     * {@code endOffset} the partition's end as last fetched (-1 not known), {@code buffered} records fetched and not
     * offered yet, {@code paused} whether fetching stopped (buffer full, or more than {@code max_pending_messages}
     * awaiting acks), {@code revoking} whether it is on its way to another member. {@code unacked} counts messages
     * offered and not acked, {@code redeliveries} how often those were offered again, {@code oldestOffset} and
     * {@code oldestAgeMs} name the one out the longest (-1 when none); {@code messages} lists them, within the row
     * limit.
     */
    public record Partition(int partition, boolean owned, long committedOffset, long ackedOffset, String sparseAcks,
                            long nextOffset, long endOffset, int buffered, boolean paused, boolean revoking,
                            int unacked, int redeliveries, long oldestOffset, long oldestAgeMs,
                            List<Message> messages) {

        /** A partition of the topic that this instance does not hold. */
        static Partition notHere(int partition) {
            return new Partition(partition, false, -1, -1, "", -1, -1, 0, false, false, 0, 0, -1, -1, List.of());
        }
    }

    /**
     * A message offered and not acked yet. {@code attempt} is its delivery number (1 the first); {@code ageMs} how
     * long since it was first handed out here; {@code dueInMs} when it is offered again (a classic group) or its
     * record lock runs out (a share group), negative when overdue; {@code where} is {@code out} (with a client) or
     * {@code waiting}: due again and waiting for a request (its {@code attempt} the delivery its client last got), or
     * in a share group acquired with no client yet; a share group's also {@code nacked} (held here until its
     * release) or {@code settling} (settled, the broker's answer not in). {@code key} and {@code value} are null
     * unless messages are shown.
     */
    public record Message(int partition, long offset, int attempt, long ageMs, long dueInMs, String where,
                          byte[] key, byte[] value) {
    }

    /** An open streaming consume call: its client's address, topics, unspent credits and messages it holds. */
    public record Stream(String peer, List<String> topics, long credits, int held) {
    }

    /** What the copy may take: a number of rows (partitions, messages, streams), and whether to copy payloads. */
    public static final class Rows {

        private final boolean showMessages;
        private int left;
        private boolean truncated;

        public Rows(int limit, boolean showMessages) {
            this.left = limit;
            this.showMessages = showMessages;
        }

        /** Takes one row; false (and the answer is marked truncated) when none is left. */
        public boolean take() {
            if (left <= 0) {
                truncated = true;
                return false;
            }
            left--;
            return true;
        }

        public boolean showMessages() {
            return showMessages;
        }

        /** Whether rows were left out because the limit was reached. */
        public boolean truncated() {
            return truncated;
        }
    }
}
