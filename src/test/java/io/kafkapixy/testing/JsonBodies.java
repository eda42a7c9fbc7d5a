package io.kafkapixy.testing;

import java.io.StringReader;

import jakarta.json.Json;
import jakarta.json.JsonObject;

/** Reads JSON response bodies in tests. */
public final class JsonBodies {

    private JsonBodies() {
    }

    public static JsonObject object(String body) {
        try (var reader = Json.createReader(new StringReader(body))) {
            return reader.readObject();
        }
    }

    /** The text of an {@code {"error": "..."}} body. */
    public static String error(String body) {
        return object(body).getString("error");
    }
}
