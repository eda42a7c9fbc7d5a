package io.kafkapixy.consumer;

/**
 * The client side of a parked consume request, as far as its transport can tell: whether an answer sent now would
 * still reach it. A message is handed only to a request whose receiver says so; one that cannot receive stays parked
 * without a message until its call ends (its transport then cancels it) or its long poll times out.
 *
 * <p>Called under the group's lock, on whichever thread hands out messages: cheap and non-blocking.
 */
@FunctionalInterface
public interface Receiver {

    /** A transport that cannot see its client before it answers (REST over Helidon's blocking handlers). */
    Receiver ANY = () -> true;

    boolean canReceive();
}
