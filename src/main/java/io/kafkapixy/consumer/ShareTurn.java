package io.kafkapixy.consumer;

import java.util.List;

/**
 * What a share consumer's thread does next, as its {@link ShareTopic} decides: send settlements, poll for a record,
 * or close. One at a time: in explicit acknowledgement mode a share consumer polls again only once every record of
 * its last poll is settled.
 */
record ShareTurn(List<Acquired> settle, boolean poll, boolean exit) {

    static final ShareTurn POLL = new ShareTurn(List.of(), true, false);
    static final ShareTurn EXIT = new ShareTurn(List.of(), false, true);

    static ShareTurn settle(List<Acquired> records) {
        return new ShareTurn(List.copyOf(records), false, false);
    }
}
