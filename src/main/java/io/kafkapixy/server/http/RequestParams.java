package io.kafkapixy.server.http;

import java.util.ArrayList;
import java.util.List;

import io.helidon.common.parameters.Parameters;
import io.helidon.common.uri.UriQuery;

/**
 * Request parameters as Go's {@code r.ParseForm()} sees them: values from a form-encoded body first, then from the
 * query string. Flags are presence-only: {@code ?sync=false} still means sync.
 */
final class RequestParams {

    private final Parameters form;
    private final UriQuery query;

    private RequestParams(Parameters form, UriQuery query) {
        this.form = form;
        this.query = query;
    }

    static RequestParams of(UriQuery query) {
        return new RequestParams(UriQuery.empty(), query);
    }

    /** {@code formBody} is the raw {@code application/x-www-form-urlencoded} body. */
    static RequestParams of(String formBody, UriQuery query) {
        return new RequestParams(UriQuery.create(formBody), query);
    }

    boolean has(String name) {
        return form.contains(name) || query.contains(name);
    }

    List<String> all(String name) {
        List<String> values = new ArrayList<>(form.all(name, List::of));
        values.addAll(query.all(name, List::of));
        return values;
    }

    /** The first value, or "" when absent (Go's {@code FormValue}). */
    String first(String name) {
        List<String> values = all(name);
        return values.isEmpty() ? "" : values.getFirst();
    }
}
