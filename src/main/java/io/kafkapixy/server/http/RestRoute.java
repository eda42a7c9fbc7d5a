package io.kafkapixy.server.http;

import io.helidon.http.Method;

/** One route of the REST API: an HTTP method and a Helidon path template such as {@code /topics/{topic}/acks}. */
public record RestRoute(Method method, String path) {
}
