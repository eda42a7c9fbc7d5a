package io.kafkapixy.consumer;

/**
 * Makes the proxy's consumer settings a share group's own at the broker before this instance's first share consumer
 * of the group starts: {@code ack_timeout} as its record lock duration, {@code max_retries} as its delivery limit.
 */
@FunctionalInterface
public interface ShareGroupSetup {

    /** Leaves the group's settings as the broker has them. */
    ShareGroupSetup NONE = group -> { };

    /** @throws io.kafkapixy.errors.PixyException the broker refused them, with its reason */
    void prepare(String group);
}
