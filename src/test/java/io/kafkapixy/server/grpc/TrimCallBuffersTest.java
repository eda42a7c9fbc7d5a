package io.kafkapixy.server.grpc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TrimCallBuffers} reaches into Helidon's gRPC handler; a Helidon upgrade that moves those fields must fail
 * here rather than quietly bring back 32 KiB per parked call. (The produce and consume tests show calls still work.)
 */
class TrimCallBuffersTest {

    @Test
    void helidonsGrpcHandlerStillHasTheBuffersThatAreTrimmed() {
        assertTrue(TrimCallBuffers.active());
    }
}
