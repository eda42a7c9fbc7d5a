package io.kafkapixy.server.http;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.kafkapixy.consumer.InFlight;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.proxy.Proxy;
import io.kafkapixy.proxy.ProxySet;

/**
 * {@code GET /inflight}, {@code /inflight/{cluster}} and {@code /inflight/{cluster}/{group}}: what this instance
 * holds for its consumer groups, as JSON with snake_case names (see docs/operations.md, "In flight"). An unknown
 * cluster, or a group with no member here, is 404 {@code {"error": ...}}. At most {@code inflight_rows} rows per
 * answer ({@code ?limit=} may ask for fewer); {@code truncated} says when rows were left out.
 */
final class InFlightHandler {

    private final ProxySet proxies;
    private final int maxRows;
    private final boolean showMessages;

    InFlightHandler(ProxySet proxies, int maxRows, boolean showMessages) {
        this.proxies = proxies;
        this.maxRows = maxRows;
        this.showMessages = showMessages;
    }

    void all(ServerRequest req, ServerResponse res) {
        InFlight.Rows rows = rows(req);
        List<Object> clusters = new ArrayList<>();
        for (Proxy p : proxies.all()) {
            clusters.add(cluster(p, p.consumers().inFlight(null, rows)));
        }
        answer(res, rows, clusters);
    }

    void cluster(ServerRequest req, ServerResponse res) {
        Proxy p = proxy(req);
        if (p == null) {
            unknownCluster(req, res);
            return;
        }
        InFlight.Rows rows = rows(req);
        answer(res, rows, List.of(cluster(p, p.consumers().inFlight(null, rows))));
    }

    void group(ServerRequest req, ServerResponse res) {
        Proxy p = proxy(req);
        if (p == null) {
            unknownCluster(req, res);
            return;
        }
        String group = req.path().pathParameters().get("group");
        InFlight.Rows rows = rows(req);
        List<InFlight.Group> groups = p.consumers().inFlight(group, rows);
        if (groups.isEmpty()) {
            HttpErrors.sendJson(res, Status.NOT_FOUND_404,
                    Map.of("error", "group `" + group + "` has no member on this instance"));
            return;
        }
        answer(res, rows, List.of(cluster(p, groups)));
    }

    private Proxy proxy(ServerRequest req) {
        try {
            return proxies.get(req.path().pathParameters().get("cluster"));
        } catch (PixyException unknown) {
            return null;
        }
    }

    private static void unknownCluster(ServerRequest req, ServerResponse res) {
        HttpErrors.sendJson(res, Status.NOT_FOUND_404,
                Map.of("error", "proxy `" + req.path().pathParameters().get("cluster") + "` does not exist"));
    }

    /** {@code ?limit=n} (1 or more) lowers the configured row limit; anything else is 400. */
    private InFlight.Rows rows(ServerRequest req) {
        int limit = maxRows;
        var given = req.query().first("limit");
        if (given.isPresent()) {
            int n;
            try {
                n = Integer.parseInt(given.get());
            } catch (NumberFormatException e) {
                n = 0;
            }
            if (n < 1) {
                throw new PixyException(io.kafkapixy.errors.ErrorKind.BAD_REQUEST,
                        "limit must be a whole number of 1 or more, got \"" + given.get() + "\"");
            }
            limit = Math.min(n, maxRows);
        }
        return new InFlight.Rows(limit, showMessages);
    }

    private void answer(ServerResponse res, InFlight.Rows rows, List<Object> clusters) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("taken_at", Instant.now().toString());
        body.put("truncated", rows.truncated());
        body.put("messages_shown", showMessages);
        body.put("clusters", clusters);
        res.header(HeaderValues.create(HeaderNames.CACHE_CONTROL, "no-store"));
        HttpErrors.sendJson(res, Status.OK_200, body);
    }

    private Map<String, Object> cluster(Proxy p, List<InFlight.Group> groups) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("cluster", p.name());
        c.put("ack_timeout_ms", p.config().consumer().ackTimeout().toMillis());
        c.put("max_retries", p.config().consumer().maxRetries());
        c.put("groups", groups.stream().map(this::group).toList());
        return c;
    }

    private Map<String, Object> group(InFlight.Group g) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("group", g.group());
        m.put("mode", g.mode());
        m.put("state", g.state());
        m.put("topics", g.topics().stream().map(this::topic).toList());
        m.put("streams", g.streams().stream().map(this::stream).toList());
        return m;
    }

    private Map<String, Object> topic(InFlight.Topic t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("topic", t.topic());
        m.put("parked_requests", t.parkedRequests());
        m.put("partition_count", t.partitionCount());
        m.put("partitions", t.partitions().stream().map(this::partition).toList());
        m.put("share_consumers", t.consumers());
        m.put("acquired", t.acquired().stream().map(this::message).toList());
        return m;
    }

    private Map<String, Object> partition(InFlight.Partition p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("partition", p.partition());
        m.put("owned", p.owned());
        if (p.owned()) {
            m.put("committed_offset", p.committedOffset());
            m.put("acked_offset", p.ackedOffset());
            m.put("sparse_acks", p.sparseAcks());
            m.put("next_offset", p.nextOffset());
            m.put("end_offset", p.endOffset());
            m.put("buffered", p.buffered());
            m.put("paused", p.paused());
            m.put("revoking", p.revoking());
            m.put("unacked", p.unacked());
            m.put("redeliveries", p.redeliveries());
            m.put("oldest_offset", p.oldestOffset());
            m.put("oldest_age_ms", p.oldestAgeMs());
            m.put("messages", p.messages().stream().map(this::message).toList());
        }
        return m;
    }

    private Map<String, Object> message(InFlight.Message msg) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("partition", msg.partition());
        m.put("offset", msg.offset());
        m.put("attempt", msg.attempt());
        m.put("age_ms", msg.ageMs());
        m.put("due_in_ms", msg.dueInMs());
        m.put("where", msg.where());
        if (showMessages) {
            m.put("key", msg.key() == null ? null : Base64.getEncoder().encodeToString(msg.key()));
            m.put("value", msg.value() == null ? null : Base64.getEncoder().encodeToString(msg.value()));
        }
        return m;
    }

    private Map<String, Object> stream(InFlight.Stream s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("peer", s.peer());
        m.put("topics", s.topics());
        m.put("credits", s.credits());
        m.put("held", s.held());
        return m;
    }
}
