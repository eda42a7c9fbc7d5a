package io.kafkapixy.consumer.share;


import java.util.List;

/**
 * What a share consumer's thread does next, as its {@link ShareTopic} decides. One at a time: in explicit
 * acknowledgement mode a share consumer fetches again only once every record of its last poll is settled, and a record
 * whose lock it renewed comes back in flight only with its next poll.
 */
sealed interface ShareTurn {

    /** Acknowledge settled records: sent at once when someone waits for the broker's answer, else with a later send. */
    record Settle(List<Acquired> records, boolean sendNow) implements ShareTurn {

        static Settle of(List<Acquired> records) {
            return new Settle(List.copyOf(records), records.stream().anyMatch(a -> a.awaited));
        }
    }

    /** Send what was acknowledged and not sent yet. */
    record Flush() implements ShareTurn {
    }

    /**
     * Fetch new records: every record of the last poll is settled. {@code join}: a new consumer's first poll, made
     * whether or not a client waits, which joins the group at the broker.
     */
    record Poll(boolean join) implements ShareTurn {
    }

    /** Renew the broker's locks on these records (every unsettled record of the last poll), then take them back. */
    record Renew(List<Acquired> records) implements ShareTurn {
    }

    /** Close the consumer. */
    record Exit() implements ShareTurn {
    }

    ShareTurn FLUSH = new Flush();
    ShareTurn POLL = new Poll(false);
    ShareTurn JOIN = new Poll(true);
    ShareTurn EXIT = new Exit();
}
