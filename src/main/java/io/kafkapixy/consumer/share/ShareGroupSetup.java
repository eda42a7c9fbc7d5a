package io.kafkapixy.consumer.share;


/**
 * Makes the proxy's consumer settings a share group's own at the broker before this instance's first share consumer
 * of the group starts: {@code ack_timeout} as its record lock duration, {@code max_retries} as its delivery limit.
 */
public interface ShareGroupSetup {

    /** Leaves the group's settings and offsets as the broker has them. */
    ShareGroupSetup NONE = new ShareGroupSetup() {
        @Override
        public void prepare(String group) {
        }

        @Override
        public int startTopic(String group, String topic) {
            return 0;
        }
    };

    /** @throws io.kafkapixy.errors.PixyException the broker refused them, with its reason */
    void prepare(String group);

    /**
     * Before this instance's first request for the group's {@code topic}: a group that never read the topic and
     * starts at the newest records ({@code share.auto.offset.reset}, {@code latest} by default) starts at the newest
     * as of now, as a new classic group does at its first request, not at its first fetch, which comes later.
     * Failures are only logged: the group then starts at its first fetch.
     *
     * @return the topic's number of partitions, 0 when not known
     */
    int startTopic(String group, String topic);

    /**
     * Deliveries after which the broker archives a released record, when {@code max_retries} is -1: the brokers'
     * largest delivery limit; 0 when not known.
     */
    default int deliveryLimit() {
        return 0;
    }
}
