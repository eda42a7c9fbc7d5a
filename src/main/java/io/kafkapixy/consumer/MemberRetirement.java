package io.kafkapixy.consumer;

import java.time.Duration;
import java.time.Instant;

/**
 * How a group's member on this instance gives its place ({@code limits.max_groups}) to a new group while it serves
 * nobody: no request parked, no stream, no message offered and not acked, and no request for
 * {@code long_polling_timeout} plus {@link #QUIET}, so none answered for {@link #QUIET} either (a client that polls in
 * a loop asks again within milliseconds of its answer). It then leaves the group as it would at its
 * {@code subscription_timeout}: closed to new requests at once (the group's next request makes a new member), it
 * commits and leaves at its owning thread's next turn.
 */
final class MemberRetirement implements InstanceLimits.Retirable {

    /** How long a member must have answered nothing, and been asked nothing, before its place may go. */
    static final Duration QUIET = Duration.ofMillis(250);

    private final GroupState state;

    MemberRetirement(GroupState state) {
        this.state = state;
    }

    @Override
    public Instant idleSince() {
        return state.locked(this::idleSinceUnderLock);
    }

    @Override
    public boolean retire() {
        return state.locked(() -> {
            if (idleSinceUnderLock() == null) {
                return false;
            }
            state.stopTakingRequests();
            state.topics.values().forEach(TopicState::expire);
            state.fetches.wakeOwner();
            return true;
        });
    }

    private Instant idleSinceUnderLock() {
        if (state.isClosed() || state.topics.isEmpty()) {
            return null;
        }
        Instant last = Instant.MIN;
        for (TopicState t : state.topics.values()) {
            if (t.hasTakers() || t.unackedCount() > 0) {
                return null;
            }
            if (t.lastRequest().isAfter(last)) {
                last = t.lastRequest();
            }
        }
        Instant answeredAtTheLatest = last.plus(state.config.longPollingTimeout());
        boolean quietLongEnough = !state.clock.instant().isBefore(answeredAtTheLatest.plus(QUIET));
        return quietLongEnough ? last : null;
    }
}
