package io.kafkapixy.config;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClientIdsTest {

    private static final Callable<String> HOST = () -> "pixy-host";
    private static final Callable<String> NO_HOST = () -> {
        throw new IOException("hostname unavailable");
    };
    private static final List<String> PLAIN_CGROUPS = List.of("0::/user.slice/user-1000.slice/session-2.scope");
    private static final List<String> DOCKER_CGROUPS = List.of(
            "12:pids:/docker/3f1c5a6e9b2d47c8a0e1f2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7",
            "11:memory:/docker/3f1c5a6e9b2d47c8a0e1f2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7");

    private static String generate(Map<String, String> env, Callable<String> host, List<String> cgroups) {
        return ClientIds.generate(env, host, cgroups, 4321, new Random(7));
    }

    @Test
    void aNomadAllocationIsNamedByItsIdAndIndex() {
        assertEquals("kp_nomad_b313e983_0", generate(
                Map.of("NOMAD_ALLOC_ID", "b313e983-c906-49df-b5f7-f6fbc59b3297", "NOMAD_ALLOC_INDEX", "0"),
                HOST, DOCKER_CGROUPS));
    }

    @Test
    void aNomadAllocationWithoutIndexIsNamedByItsId() {
        assertEquals("kp_nomad_b313e983",
                generate(Map.of("NOMAD_ALLOC_ID", "b313e983-c906-49df-b5f7-f6fbc59b3297"), NO_HOST, List.of()));
        assertEquals("kp_nomad_b313e983",
                generate(Map.of("NOMAD_ALLOC_ID", "b313e983-c906-49df-b5f7-f6fbc59b3297", "NOMAD_ALLOC_INDEX", ""),
                        HOST, List.of()));
    }

    @Test
    void aDockerContainerIsNamedByHostnameAndTwelveCharactersOfItsId() {
        assertEquals("kp_pixy-host_3f1c5a6e9b2d", generate(Map.of(), HOST, DOCKER_CGROUPS));
    }

    @Test
    void aPlainProcessIsNamedByHostnameAndPid() {
        assertEquals("kp_pixy-host_4321", generate(Map.of(), HOST, PLAIN_CGROUPS));
        assertEquals("kp_pixy-host_4321", generate(Map.of("NOMAD_ALLOC_ID", ""), HOST, List.of()));
    }

    @Test
    void withoutAHostnameTheIdIsEightRandomHexDigits() {
        String id = generate(Map.of(), NO_HOST, DOCKER_CGROUPS);

        assertTrue(id.matches("kp_[0-9a-f]{8}"), id);
        assertNotEquals(id, ClientIds.generate(Map.of(), NO_HOST, List.of(), 1, new Random(8)));
    }

    @Test
    void hostnameCharactersKafkaRejectsAreReplaced() {
        assertEquals("kp_my_host_name_4321", generate(Map.of(), () -> "my host:name", List.of()));
    }

    @Test
    void theRealEnvironmentGivesAValidClientId() {
        String id = ClientIds.generate();

        assertTrue(id.matches("kp_[a-zA-Z0-9._-]+"), id);
    }
}
