package io.kafkapixy.server.http;

import java.nio.charset.StandardCharsets;

import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.JsonbConfig;

/**
 * The REST API's JSON writer: JSON-B, indented like the original's {@code json.MarshalIndent}, writing {@code null}
 * fields (a null key is {@code "key": null}, as in Go).
 */
final class Json {

    private static final Jsonb JSONB = JsonbBuilder.create(new JsonbConfig().withFormatting(true).withNullValues(true));

    private Json() {
    }

    static byte[] bytes(Object value) {
        return JSONB.toJson(value).getBytes(StandardCharsets.UTF_8);
    }
}
