package io.kafkapixy.tracing;

import java.lang.System.Logger.Level;
import java.util.Collection;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;

/**
 * The process's tracing: W3C trace context ({@code traceparent}, {@code tracestate}) read from requests and written
 * into the records produced, and spans exported over OTLP when OpenTelemetry's own settings ask for it.
 *
 * <p>On when the environment (or the equivalent system properties) names an exporter or an OTLP endpoint:
 * {@code OTEL_TRACES_EXPORTER} (other than {@code none}), {@code OTEL_EXPORTER_OTLP_ENDPOINT} or
 * {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}; {@code OTEL_SDK_DISABLED=true} keeps it off. The SDK is then configured
 * by its own autoconfiguration from every {@code OTEL_*} setting, with these defaults: service name
 * {@code kafka-pixy}, OTLP over {@code http/protobuf}, no metrics or logs exported. Off, no SDK is made (no exporter
 * thread); a request's trace context still goes into the records it produces, so the trace continues through Kafka.
 *
 * <p>An exporter that fails (an unreachable collector, a bad endpoint) never fails or slows a request: spans wait in
 * the SDK's bounded queue and are dropped when it is full; the first failure is logged once, and exporting again
 * after failures once. Settings the SDK cannot use (an endpoint that is not a URL, an unknown sampler) are logged
 * once as an error and leave tracing off: the proxy serves, the trace context still goes into the records.
 */
public final class Tracing implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Tracing.class.getName());
    /** The SDK's exporters log every failed export; this class logs the first one instead. Held: JUL keeps loggers
     *  weakly. */
    private static final java.util.logging.Logger EXPORTER_LOGS =
            java.util.logging.Logger.getLogger("io.opentelemetry.exporter");
    static final String INSTRUMENTATION = "io.kafkapixy";
    /** W3C trace context, read from requests and written into records. */
    static final TextMapPropagator PROPAGATOR = W3CTraceContextPropagator.getInstance();

    private static final Tracing OFF = new Tracing(OpenTelemetry.noop(), null);

    private final OpenTelemetry otel;
    /** Null when off. */
    private final OpenTelemetrySdk sdk;
    private final Tracer tracer;

    private Tracing(OpenTelemetry otel, OpenTelemetrySdk sdk) {
        this.otel = otel;
        this.sdk = sdk;
        this.tracer = otel.getTracer(INSTRUMENTATION);
    }

    /** No spans: trace context is only carried from requests into records. */
    public static Tracing off() {
        return OFF;
    }

    /** Spans go to {@code otel}'s tracer (tests: an SDK with an in-memory exporter). */
    public static Tracing with(OpenTelemetry otel) {
        return new Tracing(otel, null);
    }

    /** As OpenTelemetry's settings in {@code env} and {@code properties} say (see the class comment). */
    public static Tracing configure(Map<String, String> env, Properties properties) {
        if (!wanted(env, properties)) {
            return OFF;
        }
        EXPORTER_LOGS.setLevel(java.util.logging.Level.OFF);
        OpenTelemetrySdk sdk;
        try {
            sdk = AutoConfiguredOpenTelemetrySdk.builder()
                    .addPropertiesSupplier(() -> settings(env, properties))
                    .addSpanExporterCustomizer((exporter, config) -> new LoggedOnce(exporter))
                    .disableShutdownHook()
                    .build().getOpenTelemetrySdk();
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "Tracing off: OpenTelemetry's OTEL_* settings cannot be used: " + e.getMessage());
            return OFF;
        }
        LOG.log(Level.INFO, "Tracing on: spans exported as OpenTelemetry's OTEL_* settings say");
        return new Tracing(sdk, sdk);
    }

    /**
     * The SDK's settings as properties: the proxy's defaults, overridden by the {@code OTEL_*} variables of
     * {@code env} and the {@code otel.*} entries of {@code properties} (the autoconfiguration reads the process's own
     * environment and system properties over these as well).
     */
    static Map<String, String> settings(Map<String, String> env, Properties properties) {
        Map<String, String> s = new java.util.HashMap<>(Map.of(
                "otel.service.name", "kafka-pixy",
                "otel.exporter.otlp.protocol", "http/protobuf",
                "otel.metrics.exporter", "none",
                "otel.logs.exporter", "none"));
        env.forEach((k, v) -> {
            if (k.startsWith("OTEL_")) {
                s.put(k.toLowerCase(java.util.Locale.ROOT).replace('_', '.'), v);
            }
        });
        properties.stringPropertyNames().stream().filter(k -> k.startsWith("otel."))
                .forEach(k -> s.put(k, properties.getProperty(k)));
        return s;
    }

    /** Whether OpenTelemetry's settings ask for spans to be exported, read as the SDK will read them. */
    static boolean wanted(Map<String, String> env, Properties properties) {
        Map<String, String> s = settings(env, properties);
        if ("true".equalsIgnoreCase(s.get("otel.sdk.disabled"))) {
            return false;
        }
        String exporter = s.get("otel.traces.exporter");
        if (isSet(exporter)) {
            return !exporter.strip().equalsIgnoreCase("none");
        }
        return isSet(s.get("otel.exporter.otlp.endpoint")) || isSet(s.get("otel.exporter.otlp.traces.endpoint"));
    }

    private static boolean isSet(String v) {
        return v != null && !v.isBlank();
    }

    /** Ends {@code span} (null: none made) as failed with {@code error}, the error the client was answered. */
    static void endFailed(io.opentelemetry.api.trace.Span span, Throwable error) {
        if (span != null) {
            span.setStatus(io.opentelemetry.api.trace.StatusCode.ERROR, String.valueOf(error.getMessage()));
            span.recordException(error);
            span.end();
        }
    }

    /** Whether spans are recorded and exported. */
    public boolean exporting() {
        return sdk != null;
    }

    Tracer tracer() {
        return tracer;
    }

    /** Whether spans are made at all: an SDK here, or given by a test. */
    public boolean recording() {
        return otel != OpenTelemetry.noop();
    }

    /**
     * The W3C trace context a request carries in {@code carrier} ({@code traceparent}, {@code tracestate}), read with
     * {@code getter}; the root context if none, or if it is malformed.
     */
    public static <C> Context extract(C carrier, TextMapGetter<C> getter) {
        return PROPAGATOR.extract(Context.root(), carrier, getter);
    }

    /** Exports what is queued and stops the exporter (at the end of the shutdown); nothing when off. */
    @Override
    public void close() {
        if (sdk != null) {
            sdk.shutdown().join(10, TimeUnit.SECONDS);
        }
    }

    /** Logs the first failed export, and the first success after failures, once each. */
    private static final class LoggedOnce implements SpanExporter {
        private final SpanExporter exporter;
        private final AtomicBoolean failing = new AtomicBoolean();

        LoggedOnce(SpanExporter exporter) {
            this.exporter = exporter;
        }

        @Override
        public CompletableResultCode export(Collection<SpanData> spans) {
            CompletableResultCode result = exporter.export(spans);
            result.whenComplete(() -> {
                if (!result.isSuccess() && failing.compareAndSet(false, true)) {
                    LOG.log(Level.WARNING, "Spans could not be exported" + reason(result.getFailureThrowable())
                                           + "; they are dropped until the exporter answers again (logged once)");
                } else if (result.isSuccess() && failing.compareAndSet(true, false)) {
                    LOG.log(Level.INFO, "Spans are exported again");
                }
            });
            return result;
        }

        /** The innermost cause, e.g. ": ConnectException: Connection refused"; empty when unknown. */
        private static String reason(Throwable why) {
            if (why == null) {
                return "";
            }
            Throwable root = why;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            String name = root.getClass().getSimpleName();
            return ": " + (root.getMessage() == null ? name : name + ": " + root.getMessage());
        }

        @Override
        public CompletableResultCode flush() {
            return exporter.flush();
        }

        @Override
        public CompletableResultCode shutdown() {
            return exporter.shutdown();
        }
    }
}
