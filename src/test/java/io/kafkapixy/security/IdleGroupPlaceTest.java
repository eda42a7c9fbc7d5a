package io.kafkapixy.security;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.TimeUnit;

import io.kafkapixy.config.LimitsConfig;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * {@code limits.max_groups} counts the groups an instance serves: a group whose clients stopped asking (nothing
 * parked, nothing out, none asked or answered for a moment) gives its place to a new group at once, leaving Kafka's
 * group as it would at its {@code subscription_timeout}, which here is far longer than the test.
 */
class IdleGroupPlaceTest {

    private static final Duration LONG_POLL = Duration.ofSeconds(1);
    private static TestKafka kafka;
    private static RunningPixy pixy;
    private static String topic;

    @BeforeAll
    static void start() {
        kafka = TestKafka.get();
        topic = kafka.createTopic(TestKafka.uniqueTopic("idle-place"), 1);
        pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_idle_place",
                        new ConsumerSettingsBuilder().longPollingTimeout(LONG_POLL)
                                .subscriptionTimeout(Duration.ofMinutes(10)))
                .withLimits(LimitsConfig.DEFAULT.with(LimitsConfig.MAX_GROUPS, 2)));
    }

    @AfterAll
    static void stop() {
        if (pixy != null) {
            pixy.close();
        }
    }

    @Test
    void aNewGroupTakesThePlaceOfAGroupNobodyAsksForAnyMore() throws Exception {
        String first = TestKafka.uniqueTopic("idle-first");
        String second = TestKafka.uniqueTopic("idle-second");
        assertEquals(408, poll(first).statusCode());
        TestKafka.Waits.until(Duration.ofSeconds(60), first + " joined in Kafka", () -> !members(first).isEmpty());
        assertEquals(408, poll(second).statusCode());

        String third = TestKafka.uniqueTopic("idle-third");
        // both places are taken by groups that served their last request; once they have been quiet for a moment
        // the third group is served (well before their subscription_timeout of ten minutes)
        TestKafka.Waits.until(Duration.ofSeconds(60), third + " served", () -> poll(third).statusCode() == 408);

        TestKafka.Waits.until(Duration.ofSeconds(60), first + ", quiet the longest, left its group in Kafka",
                () -> members(first).isEmpty());
        assertFalse(members(second).isEmpty(), second + " kept its place: one place was needed");
        assertEquals(408, poll(first).statusCode(), "the first group's next request takes a place again");
    }

    private static HttpResponse<String> poll(String group) {
        return pixy.get("/topics/" + topic + "/messages?group=" + group);
    }

    private static Collection<MemberDescription> members(String group) {
        try {
            ConsumerGroupDescription d = kafka.admin().describeConsumerGroups(java.util.List.of(group))
                    .describedGroups().get(group).get(30, TimeUnit.SECONDS);
            return d.members();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
