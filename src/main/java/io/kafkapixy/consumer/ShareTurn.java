package io.kafkapixy.consumer;

import java.util.List;

/**
 * What a share consumer's thread does next, as its {@link ShareTopic} decides: acknowledge settled records (sent at
 * once when someone waits for the broker's answer, else with the next poll), send what was acknowledged, poll for a
 * record, or close. One at a time: in explicit acknowledgement mode a share consumer polls again only once every
 * record of its last poll is settled.
 */
record ShareTurn(List<Acquired> settle, boolean sendNow, boolean poll, boolean flush, boolean exit) {

    static final ShareTurn POLL = new ShareTurn(List.of(), false, true, false, false);
    static final ShareTurn FLUSH = new ShareTurn(List.of(), false, false, true, false);
    static final ShareTurn EXIT = new ShareTurn(List.of(), false, false, false, true);

    static ShareTurn settle(List<Acquired> records) {
        return new ShareTurn(List.copyOf(records), records.stream().anyMatch(a -> a.awaited), false, false, false);
    }
}
