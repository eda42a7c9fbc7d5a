package io.kafkapixy.server.http;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.kafkapixy.admin.OffsetUpdate;
import io.kafkapixy.admin.PartitionOffsets;
import io.kafkapixy.admin.TopicInfo;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.proxy.Proxy;
import io.kafkapixy.security.NamedClient;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParser;
import jakarta.json.stream.JsonParsingException;

/** Offsets, consumers and topics over REST, with the original's parameters, JSON shapes, status codes and texts. */
final class AdminHandler {

    void getOffsets(Proxy proxy, String topic, ServerRequest req, ServerResponse res) {
        String group = ConsumeParams.group(RequestParams.ofQuery(req.query().rawValue()));
        List<Map<String, Object>> body = new ArrayList<>();
        for (PartitionOffsets o : proxy.admin().getOffsets(group, topic)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("partition", o.partition());
            m.put("begin", o.begin());
            m.put("end", o.end());
            m.put("count", o.count());
            m.put("offset", o.offset());
            m.put("lag", o.lag());
            if (!o.metadata().isEmpty()) {
                m.put("metadata", o.metadata());
            }
            if (!o.sparseAcks().isEmpty()) {
                m.put("sparse_acks", o.sparseAcks());
            }
            body.add(m);
        }
        HttpErrors.sendJson(res, Status.OK_200, body);
    }

    void setOffsets(Proxy proxy, String topic, ServerRequest req, ServerResponse res) {
        RequestParams params = setOffsetsParams(req);
        // Go's ParseForm consumes a form body, so the JSON decoder then sees nothing.
        byte[] body = isForm(req) ? new byte[0] : readBody(req);
        String group = ConsumeParams.group(params);
        proxy.admin().setOffsets(group, topic, parseOffsets(body));
        HttpErrors.sendJson(res, Status.OK_200, Map.of());
    }

    void listConsumers(Proxy proxy, String topic, ServerRequest req, ServerResponse res) {
        RequestParams params = RequestParams.ofQuery(req.query().rawValue());
        int count = params.allBytes("group").size();
        if (count > 1) {
            throw PixyException.badRequest("one consumer group is expected, but " + count + " provided");
        }
        // An empty group lists every group, as in the original: it names no group to join.
        Optional<String> group = count == 0 || params.firstBytes("group").length == 0 ? Optional.empty()
                : Optional.of(ConsumeParams.group(params));
        NamedClient client = RestAuth.client(req);
        SortedMap<String, SortedMap<String, List<Integer>>> consumers =
                new TreeMap<>(proxy.admin().listConsumers(topic, group));
        consumers.keySet().removeIf(g -> !client.mayDescribeGroup(g));
        HttpErrors.sendJson(res, Status.OK_200, consumers);
    }

    void listTopics(Proxy proxy, ServerRequest req, ServerResponse res) {
        RequestParams params = RequestParams.ofQuery(req.query().rawValue());
        boolean withPartitions = params.has("withPartitions");
        boolean withConfig = params.has("withConfig");
        NamedClient client = RestAuth.client(req);
        if (!withPartitions && !withConfig) {
            HttpErrors.sendJson(res, Status.OK_200, proxy.admin().topicNames().stream()
                    .filter(client::mayDescribeTopic).toList());
            return;
        }
        SortedMap<String, Object> body = new TreeMap<>();
        proxy.admin().listTopics(withPartitions, withConfig).forEach((name, info) -> {
            if (client.mayDescribeTopic(name)) {
                body.put(name, topicJson(info));
            }
        });
        HttpErrors.sendJson(res, Status.OK_200, body);
    }

    void topicMetadata(Proxy proxy, String topic, ServerRequest req, ServerResponse res) {
        boolean withPartitions = RequestParams.ofQuery(req.query().rawValue()).has("withPartitions");
        HttpErrors.sendJson(res, Status.OK_200, topicJson(proxy.admin().topic(topic, withPartitions)));
    }

    /** {@code config} and {@code partitions} only when present; {@code partitions} also omitted when empty. */
    private static Map<String, Object> topicJson(TopicInfo info) {
        Map<String, Object> m = new LinkedHashMap<>();
        info.config().ifPresent(c -> {
            Map<String, Object> config = new LinkedHashMap<>();
            config.put("version", c.version());
            config.put("config", new TreeMap<>(c.config()));
            m.put("config", config);
        });
        info.partitions().filter(p -> !p.isEmpty()).ifPresent(parts -> {
            List<Map<String, Object>> list = new ArrayList<>();
            for (TopicInfo.Partition p : parts) {
                Map<String, Object> pm = new LinkedHashMap<>();
                pm.put("partition", p.partition());
                pm.put("leader", p.leader());
                pm.put("replicas", p.replicas());
                pm.put("isr", p.isr());
                list.add(pm);
            }
            m.put("partitions", list);
        });
        return m;
    }

    /**
     * Setting offsets' parameters: a form body's and the query's, or the query's alone when the body is the offsets'
     * JSON; read once per request ({@link KeptParams}).
     */
    static RequestParams setOffsetsParams(ServerRequest req) {
        return KeptParams.of(req, r -> isForm(r) ? RequestParams.ofForm(readBody(r), r.query().rawValue())
                : RequestParams.ofQuery(r.query().rawValue()));
    }

    private static boolean isForm(ServerRequest req) {
        return ConsumeHandler.isForm(req.headers().first(HeaderNames.CONTENT_TYPE).orElse(""));
    }

    private static byte[] readBody(ServerRequest req) {
        try {
            return RequestBodies.read(req, RequestBodies.MAX_FORM_BYTES);
        } catch (PixyException e) {
            throw PixyException.badRequest("Failed to read the request: err=(" + e.getMessage() + ")");
        }
    }

    /**
     * A JSON array of {@code {partition, offset, metadata}} objects, decoded as Go's {@code encoding/json} does:
     * keys match case-insensitively, unknown keys are ignored, a missing field is 0 or "".
     */
    static List<OffsetUpdate> parseOffsets(byte[] body) {
        String text = new String(body, java.nio.charset.StandardCharsets.UTF_8);
        JsonValue value = null;
        if (text.isBlank()) {
            throw parseError("unexpected end of JSON input");
        }
        try (JsonParser parser = Json.createParser(new StringReader(text))) {
            parser.next();
            value = parser.getValue();
            if (parser.hasNext()) {
                throw parseError("invalid character '" + firstAfterValue(text, parser) + "' after top-level value");
            }
        } catch (JsonParsingException e) {
            if (value != null) {
                long at = e.getLocation().getStreamOffset();
                char c = at >= 0 && at < text.length() ? text.charAt((int) at) : ' ';
                throw parseError("invalid character '" + c + "' after top-level value");
            }
            char first = text.strip().charAt(0);
            if ("[{\"-0123456789tfn".indexOf(first) < 0) {
                throw parseError("invalid character '" + first + "' looking for beginning of value");
            }
            throw parseError(e.getMessage());
        } catch (java.util.NoSuchElementException e) {
            throw parseError("unexpected end of JSON input");
        } catch (PixyException e) {
            throw e;
        } catch (RuntimeException e) {
            // the parser's other refusals: Parsson throws a plain RuntimeException "Input is too deeply nested 1,000"
            throw parseError(String.valueOf(e.getMessage()));
        }
        if (value.getValueType() == JsonValue.ValueType.NULL) {
            return List.of();
        }
        if (!(value instanceof JsonArray array)) {
            throw parseError("json: cannot unmarshal " + jsonType(value) + " into Go value of type []httpsrv.partitionInfo");
        }
        List<OffsetUpdate> updates = new ArrayList<>();
        for (JsonValue element : array) {
            if (element.getValueType() == JsonValue.ValueType.NULL) {
                updates.add(new OffsetUpdate(0, 0, ""));
                continue;
            }
            if (!(element instanceof JsonObject o)) {
                throw parseError("json: cannot unmarshal " + jsonType(element) + " into Go value of type httpsrv.partitionInfo");
            }
            long partition = number(o, "partition", Integer.MIN_VALUE, Integer.MAX_VALUE, "int32");
            long offset = number(o, "offset", Long.MIN_VALUE, Long.MAX_VALUE, "int64");
            String metadata = "";
            JsonValue m = field(o, "metadata");
            if (m != null && m.getValueType() != JsonValue.ValueType.NULL) {
                if (!(m instanceof JsonString s)) {
                    throw parseError("json: cannot unmarshal " + jsonType(m)
                                     + " into Go struct field partitionInfo.metadata of type string");
                }
                metadata = s.getString();
            }
            updates.add(new OffsetUpdate((int) partition, offset, metadata));
        }
        return updates;
    }

    private static char firstAfterValue(String text, JsonParser parser) {
        int at = (int) parser.getLocation().getStreamOffset();
        String rest = text.substring(Math.min(Math.max(at, 0), text.length())).strip();
        return rest.isEmpty() ? ' ' : rest.charAt(0);
    }

    private static long number(JsonObject o, String name, long min, long max, String goType) {
        JsonValue v = field(o, name);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return 0;
        }
        if (!(v instanceof JsonNumber n)) {
            throw parseError("json: cannot unmarshal " + jsonType(v) + " into Go struct field partitionInfo."
                             + name + " of type " + goType);
        }
        try {
            String literal = n.toString();
            if (literal.contains(".") || literal.contains("e") || literal.contains("E")) {
                throw new ArithmeticException();
            }
            long value = n.bigDecimalValue().longValueExact();
            if (value < min || value > max) {
                throw new ArithmeticException();
            }
            return value;
        } catch (ArithmeticException e) {
            throw parseError("json: cannot unmarshal number " + n + " into Go struct field partitionInfo." + name
                             + " of type " + goType);
        }
    }

    /** Go matches JSON keys to struct fields case-insensitively, preferring an exact match. */
    private static JsonValue field(JsonObject o, String name) {
        if (o.containsKey(name)) {
            return o.get(name);
        }
        for (Map.Entry<String, JsonValue> e : o.entrySet()) {
            if (e.getKey().equalsIgnoreCase(name)) {
                return e.getValue();
            }
        }
        return null;
    }

    private static String jsonType(JsonValue v) {
        return switch (v.getValueType()) {
            case ARRAY -> "array";
            case OBJECT -> "object";
            case STRING -> "string";
            case NUMBER -> "number";
            case TRUE, FALSE -> "bool";
            case NULL -> "null";
        };
    }

    private static PixyException parseError(String reason) {
        return PixyException.badRequest("Failed to parse the request: err=(" + reason + ")");
    }
}
