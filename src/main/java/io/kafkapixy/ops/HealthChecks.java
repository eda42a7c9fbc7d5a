package io.kafkapixy.ops;

import java.util.List;
import java.util.Map;

import io.helidon.health.HealthCheck;
import io.helidon.health.HealthCheckResponse;
import io.helidon.health.HealthCheckType;

/** The readiness checks behind {@code /health/ready}: {@code draining} and {@code kafka} (each cluster). */
public final class HealthChecks {

    private HealthChecks() {
    }

    public static List<HealthCheck> readiness(Readiness readiness) {
        return List.of(check("draining", () -> HealthCheckResponse.builder()
                        .status(!readiness.draining()).detail("draining", readiness.draining()).build()),
                check("kafka", () -> {
                    Map<String, Boolean> clusters = readiness.clusters();
                    HealthCheckResponse.Builder b = HealthCheckResponse.builder()
                            .status(!clusters.containsValue(false));
                    clusters.forEach((name, up) -> b.detail(name, up ? "reachable" : "unreachable"));
                    return b.build();
                }));
    }

    private static HealthCheck check(String name, java.util.function.Supplier<HealthCheckResponse> call) {
        return new HealthCheck() {
            @Override
            public HealthCheckType type() {
                return HealthCheckType.READINESS;
            }

            @Override
            public String name() {
                return name;
            }

            @Override
            public HealthCheckResponse call() {
                return call.get();
            }
        };
    }
}
