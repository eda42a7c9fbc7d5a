package io.kafkapixy.server.http;

import java.util.Map;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerResponse;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;

/** The REST API's one error mapper: error kind → HTTP status, body {@code {"error": "<text>"}}. */
final class HttpErrors {

    private HttpErrors() {
    }

    static Status status(PixyException e) {
        return switch (e.kind()) {
            case UNKNOWN_CLUSTER, BAD_REQUEST -> Status.BAD_REQUEST_400;
            case FORBIDDEN -> Status.FORBIDDEN_403;
            case PRODUCE_UNKNOWN_TOPIC -> Status.NOT_FOUND_404;
            case MESSAGE_TOO_LARGE -> Status.REQUEST_ENTITY_TOO_LARGE_413;
            case SHUTTING_DOWN, DISABLED, MIXED_MEMBERSHIP, SHARE_GROUPS_UNAVAILABLE -> Status.SERVICE_UNAVAILABLE_503;
            case LONG_POLL_TIMEOUT -> Status.REQUEST_TIMEOUT_408;
            case TOO_MANY_REQUESTS, INSTANCE_FULL -> Status.TOO_MANY_REQUESTS_429;
            case ACK_FAILED, TOPIC_NOT_FOUND, ADMIN_FAILED -> Status.INTERNAL_SERVER_ERROR_500;
            case UNKNOWN_TOPIC -> Status.NOT_FOUND_404;
            case CONSUMERS_NOT_FOUND -> Status.BAD_REQUEST_400;
            case GROUP_ACTIVE -> Status.CONFLICT_409;
            case INTERNAL -> Status.INTERNAL_SERVER_ERROR_500;
        };
    }

    static void send(ServerResponse res, PixyException e) {
        // The original's REST API names an unknown topic of get/set offsets tersely; gRPC gets the whole text.
        String text = e.kind() == ErrorKind.UNKNOWN_TOPIC ? "Unknown topic" : e.getMessage();
        if (e.kind() == ErrorKind.INSTANCE_FULL) {
            res.header(HeaderValues.CONNECTION_CLOSE);
        }
        sendJson(res, status(e), Map.of("error", text));
    }

    static void sendJson(ServerResponse res, Status status, Object body) {
        res.status(status);
        res.header(HeaderValues.create(HeaderNames.CONTENT_TYPE, "application/json"));
        res.send(Json.bytes(body));
    }
}
