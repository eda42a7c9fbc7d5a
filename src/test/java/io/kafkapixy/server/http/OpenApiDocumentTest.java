package io.kafkapixy.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.helidon.webserver.http.HttpRouting;
import io.kafkapixy.config.PixyConfig;
import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The OpenAPI document {@code META-INF/openapi.yaml} is true: well-formed OpenAPI 3.1 whose references all resolve,
 * listing exactly the REST API's routes (plus the operations endpoints), and a running instance answers every
 * documented operation with a documented status, media type and body shape.
 */
class OpenApiDocumentTest {

    private static final String RESOURCE = "/META-INF/openapi.yaml";

    /** Documented, served beside the REST API by the server itself rather than registered by {@link RestApi}. */
    private static final Set<String> OPERATIONS_ENDPOINTS = Set.of(
            "GET /metrics", "GET /health", "GET /health/live", "GET /health/ready", "GET /openapi");

    private static final Set<String> HTTP_METHODS = Set.of(
            "get", "put", "post", "delete", "options", "head", "patch", "trace");
    private static final Pattern TEMPLATE_VARIABLE = Pattern.compile("\\{([^}/]+)}");
    private static final String NOT_FOUND_FALLBACK = "404 page not found\n";
    private static final AtomicInteger GROUPS = new AtomicInteger();

    private static Map<String, Object> document;
    private static PixyConfig config;
    private static RunningPixy pixy;
    private static String topic;

    @BeforeAll
    static void start() {
        document = load();
        config = RunningPixy.config(TestKafka.get().bootstrap(), "kp_openapi",
                ConsumerSettingsBuilder.fast().longPollingTimeout(Duration.ofMillis(500)));
        pixy = RunningPixy.start(config);
        topic = TestKafka.get().createTopic(TestKafka.uniqueTopic("openapi"), 2);
    }

    @AfterAll
    static void stop() {
        if (pixy != null) {
            pixy.close();
        }
    }

    // ---- the document itself -------------------------------------------------------------------------------------

    @Test
    void theDocumentIsOpenApi31NamedAfterTheProjectAndItsVersion() {
        assertTrue(String.valueOf(document.get("openapi")).matches("3\\.1\\.\\d+"),
                "openapi: " + document.get("openapi"));
        Map<String, Object> info = map(document.get("info"));
        assertEquals("Kafka-Pixy (Java)", info.get("title"));
        assertEquals("0.1.0", String.valueOf(info.get("version")));
        assertFalse(operations().isEmpty());
    }

    @Test
    void everyReferenceResolvesInsideTheDocument() {
        List<String> refs = new ArrayList<>();
        collectRefs(document, refs);

        assertTrue(refs.size() > 50, "the document reuses its components: " + refs.size() + " references");
        List<String> broken = new ArrayList<>();
        for (String ref : new TreeSet<>(refs)) {
            if (!ref.startsWith("#/") || pointer(ref) == null) {
                broken.add(ref);
            }
        }
        assertEquals(List.of(), broken, "references that do not resolve inside the document");
    }

    @Test
    void everyRouteOfTheServerIsDocumentedAndEveryDocumentedRestOperationIsARouteOfTheServer() {
        Set<String> routes = new TreeSet<>();
        for (RestRoute r : serverRoutes()) {
            routes.add(r.method().text() + " " + r.path());
        }
        Set<String> documented = new TreeSet<>(operations().keySet());

        assertTrue(routes.contains("POST /topics/{topic}/messages"), "routes() lists the REST API: " + routes);
        assertTrue(routes.contains("POST /clusters/{cluster}/topics/{topic}/messages"), routes.toString());
        assertTrue(routes.contains("GET /_ping"), routes.toString());
        Set<String> undocumented = new TreeSet<>(routes);
        undocumented.removeAll(documented);
        assertEquals(Set.of(), undocumented, "routes of the server missing from the document");
        Set<String> documentedRest = new TreeSet<>(documented);
        documentedRest.removeAll(OPERATIONS_ENDPOINTS);
        documentedRest.removeAll(routes);
        assertEquals(Set.of(), documentedRest, "documented operations the REST API does not have");
        assertTrue(documented.containsAll(OPERATIONS_ENDPOINTS), "operations endpoints documented: " + documented);
    }

    @Test
    void everyOperationHasAUniqueOperationIdAndAtLeastOneResponse() {
        Map<String, String> ids = new HashMap<>();
        operations().forEach((name, op) -> {
            Object id = op.get("operationId");
            assertTrue(id instanceof String s && !s.isBlank(), name + " has an operationId");
            String other = ids.put((String) id, name);
            assertEquals(null, other, "operationId " + id + " of " + name + " is unique");
            Map<String, Object> responses = map(op.get("responses"));
            assertFalse(responses.isEmpty(), name + " has responses");
            for (String status : responses.keySet()) {
                assertTrue(status.matches("[1-5][0-9][0-9]"), name + " documents explicit statuses: " + status);
                assertNotNull(map(resolve(responses.get(status))).get("description"),
                        name + " " + status + " has a description");
            }
        });
    }

    @Test
    void pathTemplateParametersAreDeclaredAsRequiredPathParametersAndNoOthers() {
        operations().forEach((name, op) -> {
            String path = name.substring(name.indexOf(' ') + 1);
            Set<String> inTemplate = new TreeSet<>();
            Matcher m = TEMPLATE_VARIABLE.matcher(path);
            while (m.find()) {
                inTemplate.add(m.group(1));
            }
            Set<String> unique = new LinkedHashSet<>();
            for (Object p : list(op.get("parameters"))) {
                Map<String, Object> param = map(resolve(p));
                assertTrue(unique.add(param.get("in") + ":" + param.get("name")),
                        name + " declares " + param.get("name") + " once");
            }
            Set<String> declared = new TreeSet<>();
            for (Map<String, Object> p : parameters(path, op)) {
                if ("path".equals(p.get("in"))) {
                    declared.add(String.valueOf(p.get("name")));
                    assertEquals(Boolean.TRUE, p.get("required"), name + ": path parameter " + p.get("name"));
                }
            }
            assertEquals(inTemplate, declared, name + ": path parameters");
        });
    }

    @Test
    void everyRestErrorAnswerIsDocumentedWithTheErrorBody() {
        operations().forEach((name, op) -> {
            if (OPERATIONS_ENDPOINTS.contains(name)) {
                return;
            }
            map(op.get("responses")).forEach((status, response) -> {
                if (status.startsWith("4") || status.startsWith("5")) {
                    Map<String, Object> content = map(map(resolve(response)).get("content"));
                    assertEquals(Set.of("application/json"), content.keySet(), name + " " + status);
                    assertEquals("#/components/schemas/Error",
                            map(map(content.get("application/json")).get("schema")).get("$ref"), name + " " + status);
                }
            });
        });
    }

    @Test
    void theShapeCheckUsedBelowRejectsBodiesTheDocumentDoesNotAllow() {
        String error = "#/components/schemas/Error";
        String message = "#/components/schemas/ConsumedMessage";
        assertEquals(List.of(), violations(Map.of("$ref", error), JsonBodies.parse("{\"error\": \"x\"}"), "$"));
        assertFalse(violations(Map.of("$ref", error), JsonBodies.parse("{\"error\": 1}"), "$").isEmpty());
        assertFalse(violations(Map.of("$ref", error), JsonBodies.parse("{\"error\": \"x\", \"y\": 1}"), "$")
                .isEmpty());
        assertFalse(violations(Map.of("$ref", "#/components/schemas/ProduceResult"),
                JsonBodies.parse("{\"partition\": 0}"), "$").isEmpty());
        assertEquals(List.of(), violations(Map.of("$ref", message), JsonBodies.parse(
                "{\"key\": null, \"value\": \"aGVsbG8=\", \"partition\": 0, \"offset\": 3, \"headers\": []}"), "$"));
        assertFalse(violations(Map.of("$ref", message), JsonBodies.parse(
                "{\"key\": \"aGVsbG8\", \"value\": null, \"partition\": 0, \"offset\": 3, \"headers\": []}"), "$")
                .isEmpty(), "unpadded base64 is refused");
        assertFalse(violations(Map.of("$ref", "#/components/schemas/TopicMetadata"), JsonBodies.parse("{}"), "$")
                .isEmpty(), "topic metadata always has its config");
    }

    // ---- against a running instance ------------------------------------------------------------------------------

    @Test
    void everyDocumentedRestOperationAnswersWithADocumentedStatusAndBody() {
        List<String> failures = new ArrayList<>();
        operations().forEach((name, op) -> {
            if (!OPERATIONS_ENDPOINTS.contains(name)) {
                check(name, op, failures);
            }
        });
        assertEquals(List.of(), failures);
    }

    @Test
    void everyDocumentedOperationsEndpointAnswersWithADocumentedStatusAndBody() {
        List<String> failures = new ArrayList<>();
        for (String name : new TreeSet<>(OPERATIONS_ENDPOINTS)) {
            check(name, operations().get(name), failures);
        }
        assertEquals(List.of(), failures);
    }

    @Test
    void typicalAnswersHaveTheDocumentedShapesAndMediaTypes() {
        String group = "openapi-shapes-" + GROUPS.incrementAndGet();
        String messages = "/topics/" + topic + "/messages";
        List<String> failures = new ArrayList<>();
        HttpResponse<String> joining = pixy.get(messages + "?group=" + group);
        assertEquals(408, joining.statusCode(), "a new group's first request: " + joining.body());

        HttpResponse<String> produced = pixy.send(HttpRequest.newBuilder(pixy.uri(messages + "?sync&key=k"))
                .header("Content-Type", "text/plain").header("X-Kafka-Trace-Id", "MTIz")
                .POST(HttpRequest.BodyPublishers.ofString("hello")));
        conforms("POST /topics/{topic}/messages", produced, failures);
        assertTrue(JsonBodies.parse(produced.body()).asJsonObject().containsKey("offset"), produced.body());

        HttpResponse<String> consumed = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline && (consumed == null || consumed.statusCode() == 408)) {
            consumed = pixy.get(messages + "?group=" + group + "&noAck");
        }
        assertEquals(200, consumed.statusCode(), consumed.body());
        conforms("GET /topics/{topic}/messages", consumed, failures);
        JsonObject message = JsonBodies.parse(consumed.body()).asJsonObject();
        assertEquals("aGVsbG8=", message.getString("value"));
        assertEquals("Trace-Id", message.getJsonArray("headers").getJsonObject(0).getString("key"));

        conforms("GET /topics/{topic}/consumers", pixy.get("/topics/" + topic + "/consumers?group=" + group), failures);
        conforms("POST /topics/{topic}/acks", pixy.post("/topics/" + topic + "/acks?group=" + group + "&partition="
                + message.getInt("partition") + "&offset=" + message.getJsonNumber("offset"), "text/plain", ""),
                failures);
        conforms("GET /topics/{topic}/offsets", pixy.get("/topics/" + topic + "/offsets?group=" + group), failures);
        conforms("GET /topics", pixy.get("/topics?withPartitions&withConfig"), failures);
        conforms("GET /topics/{topic}", pixy.get("/topics/" + topic + "?withPartitions"), failures);
        conforms("GET /clusters/{cluster}/topics/{topic}/offsets", pixy.send(HttpRequest.newBuilder(
                pixy.uri("/clusters/nowhere/topics/" + topic + "/offsets?group=" + group)).GET()), failures);

        assertEquals(List.of(), failures);
    }

    @Test
    void getOpenapiServesThisDocumentAsYamlAndAsJson() {
        List<String> failures = new ArrayList<>();
        HttpResponse<String> yaml = pixy.get("/openapi");
        assertEquals(200, yaml.statusCode(), yaml.body());
        conforms("GET /openapi", yaml, failures);
        Map<String, Object> served = map(new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml.body()));
        assertEquals(document.get("openapi"), served.get("openapi"));
        assertEquals(map(document.get("paths")).keySet(), map(served.get("paths")).keySet());

        HttpResponse<String> json = pixy.send(HttpRequest.newBuilder(pixy.uri("/openapi"))
                .header("Accept", "application/json").GET());
        assertEquals(200, json.statusCode(), json.body());
        assertEquals("application/json", mediaType(json));
        JsonObject parsed = JsonBodies.parse(json.body()).asJsonObject();
        assertEquals(document.get("openapi"), parsed.getString("openapi"));
        assertEquals(map(document.get("paths")).keySet(), parsed.getJsonObject("paths").keySet());

        HttpResponse<String> asked = pixy.send(HttpRequest.newBuilder(pixy.uri("/openapi"))
                .header("Accept", "application/yaml").GET());
        assertEquals("application/yaml", mediaType(asked));
        conforms("GET /openapi", asked, failures);
        HttpResponse<String> formatJson = pixy.get("/openapi?format=JSON");
        assertEquals("application/json", mediaType(formatJson));
        conforms("GET /openapi", formatJson, failures);
        HttpResponse<String> badFormat = pixy.get("/openapi?format=xml");
        assertEquals(400, badFormat.statusCode(), badFormat.body());
        conforms("GET /openapi", badFormat, failures);
        assertEquals(List.of(), failures);
    }

    // ---- helpers ---------------------------------------------------------------------------------------------------

    /** Sends the operation with its path parameters, required query parameters and required body filled in. */
    private static void check(String name, Map<String, Object> op, List<String> failures) {
        String method = name.substring(0, name.indexOf(' '));
        String template = name.substring(name.indexOf(' ') + 1);
        String group = "openapi-" + GROUPS.incrementAndGet();
        StringBuilder query = new StringBuilder();
        String path = template;
        for (Map<String, Object> p : parameters(template, op)) {
            String pname = String.valueOf(p.get("name"));
            if ("path".equals(p.get("in"))) {
                path = path.replace("{" + pname + "}", switch (pname) {
                    case "cluster" -> config.defaultCluster();
                    case "topic" -> topic;
                    case "group" -> group;
                    default -> throw new AssertionError(name + ": no test value for path parameter " + pname);
                });
            } else if ("query".equals(p.get("in")) && Boolean.TRUE.equals(p.get("required"))) {
                String value = switch (pname) {
                    case "group" -> group;
                    case "partition", "offset" -> "0";
                    default -> throw new AssertionError(name + ": no test value for query parameter " + pname);
                };
                query.append(query.isEmpty() ? "?" : "&").append(pname).append('=').append(value);
            }
        }
        HttpRequest.Builder rq = HttpRequest.newBuilder(pixy.uri(path + query));
        Map<String, Object> body = op.containsKey("requestBody") ? map(resolve(op.get("requestBody"))) : Map.of();
        if (Boolean.TRUE.equals(body.get("required"))) {
            Map.Entry<String, Object> first = map(body.get("content")).entrySet().iterator().next();
            rq.header("Content-Type", first.getKey());
            rq.method(method, HttpRequest.BodyPublishers.ofString(
                    encode(first.getKey(), map(first.getValue()).get("example"))));
        } else {
            rq.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> rs = pixy.send(rq);
        String request = method + " " + path + query;
        if (rs.statusCode() == 405 && rs.body().isEmpty()
            || rs.statusCode() == 404 && NOT_FOUND_FALLBACK.equals(rs.body())) {
            failures.add(request + ": the server's fallback answered (" + rs.statusCode() + "), no route");
            return;
        }
        conforms(name, rs, failures);
    }

    /** The answer's status is documented for the operation, and so are its media type and (JSON) body shape. */
    private static void conforms(String name, HttpResponse<String> rs, List<String> failures) {
        String request = rs.request().method() + " " + rs.uri().getRawPath()
                         + (rs.uri().getRawQuery() == null ? "" : "?" + rs.uri().getRawQuery());
        Map<String, Object> responses = map(operations().get(name).get("responses"));
        Object documented = responses.get(String.valueOf(rs.statusCode()));
        if (documented == null) {
            failures.add(request + ": status " + rs.statusCode() + " is not documented for " + name + " "
                         + responses.keySet() + ", body " + rs.body());
            return;
        }
        Map<String, Object> content = map(map(resolve(documented)).get("content"));
        if (content.isEmpty() || rs.body().isEmpty()) {
            return;
        }
        String mediaType = mediaType(rs);
        if (!content.containsKey(mediaType)) {
            failures.add(request + ": " + rs.statusCode() + " with Content-Type " + mediaType + ", documented "
                         + content.keySet());
            return;
        }
        Object schema = map(content.get(mediaType)).get("schema");
        if ("application/json".equals(mediaType) && schema != null) {
            JsonValue value;
            try {
                value = JsonBodies.parse(rs.body());
            } catch (RuntimeException e) {
                failures.add(request + ": " + rs.statusCode() + " body is not JSON: " + rs.body());
                return;
            }
            for (String v : violations(schema, value, "$")) {
                failures.add(request + ": " + rs.statusCode() + " body " + v + ": " + rs.body());
            }
        }
    }

    private static String mediaType(HttpResponse<String> rs) {
        String ct = rs.headers().firstValue("Content-Type").orElse("");
        int semi = ct.indexOf(';');
        return (semi < 0 ? ct : ct.substring(0, semi)).trim().toLowerCase(java.util.Locale.ROOT);
    }

    private static String encode(String contentType, Object example) {
        if (example == null) {
            throw new AssertionError("a required request body of " + contentType + " needs an example");
        }
        if (contentType.equals("application/x-www-form-urlencoded")) {
            return map(example).entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8)
                    + "=" + URLEncoder.encode(String.valueOf(e.getValue()), StandardCharsets.UTF_8))
                    .collect(Collectors.joining("&"));
        }
        if (contentType.contains("json")) {
            try (Jsonb jsonb = JsonbBuilder.create()) {
                return jsonb.toJson(example);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
        return String.valueOf(example);
    }

    /**
     * Where {@code value} breaks {@code schema}: the JSON Schema keywords the document uses ($ref, allOf, oneOf,
     * anyOf, type, const, enum, properties, required, additionalProperties, maxProperties, items, format int32,
     * contentEncoding base64).
     */
    private static List<String> violations(Object schemaNode, JsonValue value, String at) {
        Map<String, Object> schema = map(resolve(schemaNode));
        List<String> out = new ArrayList<>();
        if (schema.containsKey("$ref")) {
            out.addAll(violations(schema, value, at));
        }
        for (Object sub : list(schema.get("allOf"))) {
            out.addAll(violations(sub, value, at));
        }
        if (schema.containsKey("oneOf")) {
            long matching = list(schema.get("oneOf")).stream().filter(s -> violations(s, value, at).isEmpty()).count();
            if (matching != 1) {
                out.add(at + " matches " + matching + " of the oneOf schemas, not exactly one");
            }
        }
        if (schema.containsKey("anyOf")
            && list(schema.get("anyOf")).stream().noneMatch(s -> violations(s, value, at).isEmpty())) {
            out.add(at + " matches none of the anyOf schemas");
        }
        if (schema.containsKey("type")) {
            Object type = schema.get("type");
            List<Object> types = type instanceof List<?> l ? new ArrayList<>(l) : List.of(type);
            if (types.stream().noneMatch(t -> hasType(value, String.valueOf(t)))) {
                out.add(at + " is " + value.getValueType() + ", not " + types);
                return out;
            }
        }
        if (schema.containsKey("const") && !sameValue(schema.get("const"), value)) {
            out.add(at + " is " + value + ", not " + schema.get("const"));
        }
        if (schema.containsKey("enum") && list(schema.get("enum")).stream().noneMatch(e -> sameValue(e, value))) {
            out.add(at + " is " + value + ", not one of " + schema.get("enum"));
        }
        if ("int32".equals(schema.get("format")) && value instanceof JsonNumber n
            && (n.longValue() < Integer.MIN_VALUE || n.longValue() > Integer.MAX_VALUE)) {
            out.add(at + " is " + n + ", not an int32");
        }
        if ("base64".equals(schema.get("contentEncoding")) && value instanceof JsonString s
            && !isPaddedBase64(s.getString())) {
            out.add(at + " is not standard base64 with padding: " + s.getString());
        }
        if (value instanceof JsonObject o) {
            Map<String, Object> properties = map(schema.get("properties"));
            for (Object required : list(schema.get("required"))) {
                if (!o.containsKey(String.valueOf(required))) {
                    out.add(at + " lacks " + required);
                }
            }
            if (schema.get("maxProperties") instanceof Number max && o.size() > max.intValue()) {
                out.add(at + " has more than " + max + " properties");
            }
            Object additional = schema.get("additionalProperties");
            for (Map.Entry<String, JsonValue> e : o.entrySet()) {
                String child = at + "." + e.getKey();
                if (properties.containsKey(e.getKey())) {
                    out.addAll(violations(properties.get(e.getKey()), e.getValue(), child));
                } else if (Boolean.FALSE.equals(additional)) {
                    out.add(child + " is not a documented property");
                } else if (additional instanceof Map<?, ?>) {
                    out.addAll(violations(additional, e.getValue(), child));
                }
            }
        }
        if (value instanceof JsonArray a && schema.containsKey("items")) {
            for (int i = 0; i < a.size(); i++) {
                out.addAll(violations(schema.get("items"), a.get(i), at + "[" + i + "]"));
            }
        }
        return out;
    }

    private static boolean hasType(JsonValue v, String type) {
        return switch (type) {
            case "object" -> v.getValueType() == JsonValue.ValueType.OBJECT;
            case "array" -> v.getValueType() == JsonValue.ValueType.ARRAY;
            case "string" -> v.getValueType() == JsonValue.ValueType.STRING;
            case "integer" -> v instanceof JsonNumber n && n.isIntegral();
            case "number" -> v.getValueType() == JsonValue.ValueType.NUMBER;
            case "boolean" -> v == JsonValue.TRUE || v == JsonValue.FALSE;
            case "null" -> v == JsonValue.NULL;
            default -> throw new AssertionError("unknown JSON Schema type " + type);
        };
    }

    private static boolean sameValue(Object expected, JsonValue v) {
        return switch (v) {
            case JsonString s -> s.getString().equals(String.valueOf(expected));
            case JsonNumber n -> expected instanceof Number e && n.longValue() == e.longValue();
            default -> false;
        };
    }

    private static boolean isPaddedBase64(String s) {
        if (s.length() % 4 != 0) {
            return false;
        }
        try {
            Base64.getDecoder().decode(s);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** "METHOD /path" → operation, in document order. */
    private static Map<String, Map<String, Object>> operations() {
        Map<String, Map<String, Object>> ops = new LinkedHashMap<>();
        map(document.get("paths")).forEach((path, item) -> map(resolve(item)).forEach((key, op) -> {
            if (HTTP_METHODS.contains(key)) {
                ops.put(key.toUpperCase(java.util.Locale.ROOT) + " " + path, map(op));
            }
        }));
        return ops;
    }

    /** The path item's and the operation's parameters, resolved; the operation's win by location and name. */
    private static List<Map<String, Object>> parameters(String path, Map<String, Object> op) {
        Map<String, Map<String, Object>> byKey = new LinkedHashMap<>();
        List<Object> declared = new ArrayList<>(list(map(resolve(map(document.get("paths")).get(path))).get("parameters")));
        declared.addAll(list(op.get("parameters")));
        for (Object p : declared) {
            Map<String, Object> param = map(resolve(p));
            byKey.put(param.get("in") + ":" + param.get("name"), param);
        }
        return new ArrayList<>(byKey.values());
    }

    /** The server's routes, as {@link RestApi#register} adds them. */
    private static Set<RestRoute> serverRoutes() {
        RestApi api = new RestApi(pixy.app().proxies());
        api.register(HttpRouting.builder());
        return new LinkedHashSet<>(api.routes());
    }

    private static Object resolve(Object node) {
        Object current = node;
        for (int hops = 0; current instanceof Map<?, ?> m && m.get("$ref") instanceof String ref; hops++) {
            if (hops > 20) {
                throw new AssertionError("reference loop at " + ref);
            }
            Object target = pointer(ref);
            if (target == null) {
                throw new AssertionError("unresolved reference " + ref);
            }
            current = target;
        }
        return current;
    }

    /** The node a local JSON pointer reference names, or null. */
    private static Object pointer(String ref) {
        if (!ref.startsWith("#/")) {
            return null;
        }
        Object node = document;
        for (String token : ref.substring(2).split("/", -1)) {
            String key = token.replace("~1", "/").replace("~0", "~");
            if (!(node instanceof Map<?, ?> m) || !m.containsKey(key)) {
                return null;
            }
            node = m.get(key);
        }
        return node;
    }

    private static void collectRefs(Object node, List<String> into) {
        if (node instanceof Map<?, ?> m) {
            if (m.get("$ref") instanceof String ref) {
                into.add(ref);
            }
            m.values().forEach(v -> collectRefs(v, into));
        } else if (node instanceof List<?> l) {
            l.forEach(v -> collectRefs(v, into));
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object node) {
        if (node == null) {
            return Map.of();
        }
        if (!(node instanceof Map<?, ?> m)) {
            throw new AssertionError("expected a mapping, got " + node);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        m.forEach((k, v) -> result.put(String.valueOf(k), v));
        return result;
    }

    private static List<Object> list(Object node) {
        if (node == null) {
            return List.of();
        }
        if (!(node instanceof List<?> l)) {
            throw new AssertionError("expected a sequence, got " + node);
        }
        return new ArrayList<>(l);
    }

    private static Map<String, Object> load() {
        try (InputStream in = OpenApiDocumentTest.class.getResourceAsStream(RESOURCE)) {
            assertNotNull(in, RESOURCE + " is on the class path");
            LoaderOptions options = new LoaderOptions();
            return map(new Yaml(new SafeConstructor(options)).load(in));
        } catch (IOException e) {
            return fail(e);
        }
    }

    /** JSON response bodies, any JSON value. */
    private static final class JsonBodies {
        private JsonBodies() {
        }

        static JsonValue parse(String body) {
            try (var reader = Json.createReader(new StringReader(body))) {
                return reader.readValue();
            }
        }
    }
}
