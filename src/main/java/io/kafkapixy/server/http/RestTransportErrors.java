package io.kafkapixy.server.http;

import java.util.Map;

import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderNames;
import io.helidon.http.ServerResponseHeaders;
import io.helidon.http.Status;

/**
 * Requests Helidon refuses before any route sees them (request line or headers that cannot be parsed, headers over
 * {@code limits.max_header_bytes}) get the API's JSON error body instead of an empty one, and oversized headers get
 * 431 rather than a bare 400.
 */
public final class RestTransportErrors implements DirectHandler {

    static final Status HEADERS_TOO_LARGE = Status.create(431, "Request Header Fields Too Large");
    private static final String HELIDON_HEADERS_TOO_LARGE = "Header size exceeded";

    private final int maxHeaderBytes;

    public RestTransportErrors(int maxHeaderBytes) {
        this.maxHeaderBytes = maxHeaderBytes;
    }

    @Override
    public TransportResponse handle(TransportRequest request, EventType eventType, Status defaultStatus,
                                    ServerResponseHeaders headers, Throwable thrown, System.Logger logger) {
        return handle(request, eventType, defaultStatus, headers, thrown);
    }

    /** Helidon hands the parser's exception here and a blank message to the other method. */
    @Override
    public TransportResponse handle(TransportRequest request, EventType eventType, Status defaultStatus,
                                    ServerResponseHeaders headers, Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains(HELIDON_HEADERS_TOO_LARGE)) {
                return handle(request, eventType, defaultStatus, headers, HELIDON_HEADERS_TOO_LARGE);
            }
        }
        return handle(request, eventType, defaultStatus, headers, thrown == null ? "" : thrown.getMessage());
    }

    @Override
    public TransportResponse handle(TransportRequest request, EventType eventType, Status defaultStatus,
                                    ServerResponseHeaders headers, String message) {
        Status status = defaultStatus;
        String text = message == null || message.isBlank() ? defaultStatus.reasonPhrase() : message;
        if (message != null && message.contains(HELIDON_HEADERS_TOO_LARGE)) {
            status = HEADERS_TOO_LARGE;
            text = "request headers are larger than " + maxHeaderBytes + " bytes (limits.max_header_bytes)";
        }
        headers.set(HeaderNames.CONTENT_TYPE, "application/json");
        return TransportResponse.builder()
                .status(status)
                .headers(headers)
                .keepAlive(false)
                .entity(Json.bytes(Map.of("error", text)))
                .build();
    }
}
