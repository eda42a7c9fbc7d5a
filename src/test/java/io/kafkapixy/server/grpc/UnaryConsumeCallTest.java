package io.kafkapixy.server.grpc;

import org.junit.jupiter.api.Test;

import static io.kafkapixy.server.grpc.UnaryConsumeCall.Answer.EARLY;
import static io.kafkapixy.server.grpc.UnaryConsumeCall.Answer.IN_TIME;
import static io.kafkapixy.server.grpc.UnaryConsumeCall.Answer.LATE;
import static io.kafkapixy.server.grpc.UnaryConsumeCall.Answer.NONE;
import static io.kafkapixy.server.grpc.UnaryConsumeCall.Answer.WITHOUT_MESSAGE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When a ConsumeNAck call with a deadline takes a message, and when the message it was handed counts as delivered. */
class UnaryConsumeCallTest {

    private static final long MS = 1_000_000L;

    @Test
    void aCallKeepsThreeQuartersOfItsTimeBackBetweenThreeAndFiftyMilliseconds() {
        assertEquals(15 * MS, UnaryConsumeCall.margin(20 * MS));
        assertEquals(3 * MS, UnaryConsumeCall.margin(2 * MS), "a call of 3 ms or less takes no message");
        assertEquals(3 * MS, UnaryConsumeCall.margin(4 * MS));
        assertEquals(50 * MS, UnaryConsumeCall.margin(1_000 * MS));
    }

    @Test
    void anAnswerIsEarlyWithHalfTheCallsTimeLeftInTimeWithAMillisecondAndLateWithLess() {
        assertEquals(EARLY, UnaryConsumeCall.answerWith(18 * MS, 20 * MS));
        assertEquals(EARLY, UnaryConsumeCall.answerWith(10 * MS, 20 * MS));
        assertEquals(IN_TIME, UnaryConsumeCall.answerWith(2 * MS, 20 * MS));
        assertEquals(LATE, UnaryConsumeCall.answerWith(MS - 1, 20 * MS));
        assertEquals(LATE, UnaryConsumeCall.answerWith(-5 * MS, 20 * MS));
    }

    @Test
    void anEarlyAnswerIsDeliveredHoweverLateItsCloseIsReported() {
        assertTrue(UnaryConsumeCall.deliveredOnClose(EARLY, -12 * MS));
        assertTrue(UnaryConsumeCall.deliveredOnCancel(EARLY, true), "cancelled by the server's own deadline");
    }

    @Test
    void anAnswerInTimeIsDeliveredOnlyIfTheCallClosedInTimeToo() {
        assertTrue(UnaryConsumeCall.deliveredOnClose(IN_TIME, 2 * MS));
        assertFalse(UnaryConsumeCall.deliveredOnClose(IN_TIME, MS / 2));
        assertFalse(UnaryConsumeCall.deliveredOnCancel(IN_TIME, true));
    }

    @Test
    void aClientsCancelAlwaysGivesTheMessageBack() {
        for (UnaryConsumeCall.Answer a : UnaryConsumeCall.Answer.values()) {
            assertFalse(UnaryConsumeCall.deliveredOnCancel(a, false), a.name());
        }
    }

    @Test
    void aLateAnswerOrOneWithoutItsMessageIsNeverDelivered() {
        for (UnaryConsumeCall.Answer a : new UnaryConsumeCall.Answer[]{LATE, WITHOUT_MESSAGE, NONE}) {
            assertFalse(UnaryConsumeCall.deliveredOnClose(a, 10 * MS), a.name());
            assertFalse(UnaryConsumeCall.deliveredOnCancel(a, true), a.name());
        }
    }
}
