package io.kafkapixy.server.grpc;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The warm-up connection a plaintext gRPC server makes to itself at start: the server answers its HTTP/2 preface, no
 * call is counted for it, and a peer that does not answer only makes it give up.
 */
class ConnectionWarmUpTest {

    private static RunningPixy pixy;

    @BeforeAll
    static void start() {
        pixy = RunningPixy.start(RunningPixy.config(TestKafka.get().bootstrap()));
    }

    @AfterAll
    static void stop() {
        if (pixy != null) {
            pixy.close();
        }
    }

    @Test
    void theServerAnswersThePrefaceAndNoCallIsCounted() {
        int port = pixy.app().server().grpcPort().orElseThrow();

        assertTrue(ConnectionWarmUp.run(ConnectionWarmUp.address("0.0.0.0", port)));

        String metrics = pixy.get("/metrics").body();
        assertFalse(metrics.lines().anyMatch(l -> l.startsWith("kafkapixy_api_requests") && l.contains("grpc")),
                "no gRPC call was made");
    }

    @Test
    void aWildcardListenerIsReachedOnLoopback() {
        assertEquals(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1234),
                ConnectionWarmUp.address("0.0.0.0", 1234));
        assertEquals(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1234),
                ConnectionWarmUp.address("::", 1234));
    }

    @Test
    void aPeerThatClosesWithoutAnsweringOnlyEndsTheWarmUp() throws Exception {
        try (ServerSocket notHttp2 = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread closer = Thread.ofVirtual().start(() -> {
                try {
                    notHttp2.accept().close();
                } catch (java.io.IOException ignored) {
                    // the test fails on its own assertion
                }
            });
            assertFalse(ConnectionWarmUp.run(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    notHttp2.getLocalPort())));
            closer.join();
        }
    }
}
