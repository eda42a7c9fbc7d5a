package io.kafkapixy.tracing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import com.sun.net.httpserver.HttpServer;

/**
 * A collector's OTLP/HTTP trace endpoint, as small as a test needs: {@code POST /v1/traces} with an
 * {@code ExportTraceServiceRequest} in protobuf, decoded field by field (the OTLP field numbers) into the spans it
 * carries, each with its resource's attributes; answered 200 with an empty response.
 */
final class OtlpReceiver implements AutoCloseable {

    /** One received span: ids in lower-case hex, string attributes, and its resource's string attributes. */
    record ReceivedSpan(String name, int kind, String traceId, String spanId, String parentSpanId,
                        Map<String, String> attributes, Map<String, String> resource) {
    }

    private final HttpServer server;
    final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();

    OtlpReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/v1/traces", exchange -> {
            try (exchange) {
                byte[] body = exchange.getRequestBody().readAllBytes();
                decode(body);
                exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
                exchange.sendResponseHeaders(200, -1);
            } catch (RuntimeException e) {
                exchange.sendResponseHeaders(400, -1);
            }
        });
        server.start();
    }

    /** Where an exporter sends: {@code OTEL_EXPORTER_OTLP_ENDPOINT}. */
    String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void decode(byte[] body) throws IOException {
        for (ByteString resourceSpans : fields(UnknownFieldSet.parseFrom(body), 1)) {
            UnknownFieldSet rs = UnknownFieldSet.parseFrom(resourceSpans);
            Map<String, String> resource = new HashMap<>();
            for (ByteString r : fields(rs, 1)) {
                resource.putAll(attributes(UnknownFieldSet.parseFrom(r), 1));
            }
            for (ByteString scopeSpans : fields(rs, 2)) {
                for (ByteString s : fields(UnknownFieldSet.parseFrom(scopeSpans), 2)) {
                    UnknownFieldSet span = UnknownFieldSet.parseFrom(s);
                    spans.add(new ReceivedSpan(string(span, 5),
                            span.hasField(6) ? span.getField(6).getVarintList().getFirst().intValue() : 0,
                            hex(span, 1), hex(span, 2), hex(span, 4), attributes(span, 9), Map.copyOf(resource)));
                }
            }
        }
    }

    private static List<ByteString> fields(UnknownFieldSet set, int number) {
        return set.hasField(number) ? set.getField(number).getLengthDelimitedList() : List.of();
    }

    private static String string(UnknownFieldSet set, int number) {
        List<ByteString> f = fields(set, number);
        return f.isEmpty() ? "" : f.getFirst().toString(StandardCharsets.UTF_8);
    }

    private static String hex(UnknownFieldSet set, int number) {
        List<ByteString> f = fields(set, number);
        return f.isEmpty() ? "" : HexFormat.of().formatHex(f.getFirst().toByteArray());
    }

    /** {@code KeyValue}s (key 1, {@code AnyValue} 2) whose value is a string (1) or an int (3). */
    private static Map<String, String> attributes(UnknownFieldSet set, int number) throws IOException {
        Map<String, String> out = new HashMap<>();
        for (ByteString kv : fields(set, number)) {
            UnknownFieldSet pair = UnknownFieldSet.parseFrom(kv);
            UnknownFieldSet value = UnknownFieldSet.parseFrom(fields(pair, 2).getFirst());
            if (value.hasField(1)) {
                out.put(string(pair, 1), string(value, 1));
            } else if (value.hasField(3)) {
                out.put(string(pair, 1), Long.toString(value.getField(3).getVarintList().getFirst()));
            }
        }
        return out;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
