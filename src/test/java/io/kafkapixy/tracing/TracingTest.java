package io.kafkapixy.tracing;

import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tracing is on only when OpenTelemetry's own settings name an exporter or an OTLP endpoint. */
class TracingTest {

    @Test
    void nothingConfiguredKeepsTracingOffWithoutAnSdk() {
        Tracing t = Tracing.configure(Map.of(), new Properties());

        assertSame(Tracing.off(), t);
        assertFalse(t.exporting());
    }

    @Test
    void anOtlpEndpointOrAnExporterTurnsItOn() {
        assertTrue(Tracing.wanted(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"), new Properties()));
        assertTrue(Tracing.wanted(Map.of("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://c:4318/v1/traces"),
                new Properties()));
        assertTrue(Tracing.wanted(Map.of("OTEL_TRACES_EXPORTER", "otlp"), new Properties()));
        assertTrue(Tracing.wanted(Map.of(), props("otel.exporter.otlp.endpoint", "http://collector:4318")),
                "the system property of the same name");
    }

    @Test
    void noneOrADisabledSdkKeepsItOff() {
        assertFalse(Tracing.wanted(Map.of("OTEL_TRACES_EXPORTER", "none",
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"), new Properties()));
        assertFalse(Tracing.wanted(Map.of("OTEL_SDK_DISABLED", "true",
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"), new Properties()));
    }

    @Test
    void theProxysDefaultsGiveWayToOpenTelemetrysOwnSettings() {
        Map<String, String> defaults = Tracing.settings(Map.of(), new Properties());
        assertEquals("kafka-pixy", defaults.get("otel.service.name"));
        assertEquals("http/protobuf", defaults.get("otel.exporter.otlp.protocol"));
        assertEquals("none", defaults.get("otel.metrics.exporter"));

        Map<String, String> set = Tracing.settings(Map.of("OTEL_SERVICE_NAME", "pixy-eu1",
                "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", "PATH", "/bin"), props("otel.traces.sampler", "always_on"));
        assertEquals("pixy-eu1", set.get("otel.service.name"));
        assertEquals("grpc", set.get("otel.exporter.otlp.protocol"));
        assertEquals("always_on", set.get("otel.traces.sampler"));
        assertFalse(set.containsKey("path"), "only OpenTelemetry's settings");
    }

    @Test
    void whenOnTheSdkIsMadeAndClosedWithTheProcess() {
        Tracing t = Tracing.configure(Map.of(), props("otel.traces.exporter", "logging"));
        try {
            assertTrue(t.exporting());
        } finally {
            t.close();
        }
    }

    @Test
    void settingsTheSdkCannotUseLeaveTracingOffAndTheProxyServing() {
        Tracing badEndpoint = Tracing.configure(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "not a url"), new Properties());
        Tracing badSampler = Tracing.configure(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318",
                "OTEL_TRACES_SAMPLER", "sometimes"), new Properties());

        assertSame(Tracing.off(), badEndpoint);
        assertSame(Tracing.off(), badSampler);
    }

    private static Properties props(String k, String v) {
        Properties p = new Properties();
        p.setProperty(k, v);
        return p;
    }
}
