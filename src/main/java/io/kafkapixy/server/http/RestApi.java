package io.kafkapixy.server.http;

import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.common.Weighted;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpFeature;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import io.kafkapixy.proxy.Proxy;
import io.kafkapixy.proxy.ProxySet;
import io.kafkapixy.proxy.TopicNames;
import io.kafkapixy.security.Guard;
import io.kafkapixy.security.Operation;

/**
 * The REST API's routes, as the original's: every resource with and without the {@code /clusters/{cluster}} prefix
 * (without it, the default cluster), 405 with an empty body for a known path and another method, and Go's
 * {@code 404 page not found} for the rest. Handlers resolve the cluster first, then parameters; domain errors go
 * through {@link HttpErrors}.
 */
public final class RestApi {

    private static final System.Logger LOG = System.getLogger(RestApi.class.getName());
    private static final byte[] NOT_FOUND_BODY = "404 page not found\n".getBytes(StandardCharsets.UTF_8);

    private final ProxySet proxies;
    private final Guard guard;
    private final InFlightHandler inFlight;
    private final List<RestRoute> routes = new ArrayList<>();

    /** With {@code /inflight} at its defaults: 1,000 rows, no message keys and values; refusals not counted. */
    public RestApi(ProxySet proxies) {
        this(proxies, Guard.logging((client, operation) -> { }), 1000, false);
    }

    /**
     * @param inflightRows     the most rows one answer of {@code /inflight} has
     * @param inflightMessages whether {@code /inflight} shows the keys and values of the messages out
     */
    public RestApi(ProxySet proxies, Guard guard, int inflightRows, boolean inflightMessages) {
        this.proxies = proxies;
        this.guard = guard;
        this.inFlight = new InFlightHandler(proxies, inflightRows, inflightMessages);
    }

    /** A resource that takes no group. */
    private static final Function<ServerRequest, RequestParams> NO_GROUP = req -> null;
    /** A resource that takes its group from the query. */
    private static final Function<ServerRequest, RequestParams> QUERY = req -> RequestParams.ofQuery(
            req.query().rawValue());

    /** Every method and path template {@link #register} added, in order (the 405/404 fallbacks excepted). */
    public List<RestRoute> routes() {
        return List.copyOf(routes);
    }

    /** Adds every route of the REST API to {@code routing}. */
    public void register(HttpRouting.Builder routing) {
        routing.addFilter(new UncleanPaths());
        Set<String> paths = new LinkedHashSet<>();
        ProduceHandler produce = new ProduceHandler();
        ConsumeHandler consume = new ConsumeHandler();
        resource(routing, paths, Method.POST, "/topics/{topic}/messages", Operation.WRITE, NO_GROUP,
                produce::handle);
        resource(routing, paths, Method.GET, "/topics/{topic}/messages", Operation.READ, QUERY,
                consume::consume);
        resource(routing, paths, Method.POST, "/topics/{topic}/acks", Operation.READ,
                ConsumeHandler::settleParams,
                consume::ack);
        resource(routing, paths, Method.POST, "/topics/{topic}/rejects", Operation.READ,
                ConsumeHandler::settleParams,
                consume::reject);
        resource(routing, paths, Method.POST, "/topics/{topic}/renewals", Operation.READ,
                ConsumeHandler::settleParams,
                consume::renew);
        AdminHandler admin = new AdminHandler();
        resource(routing, paths, Method.GET, "/topics/{topic}/offsets", Operation.DESCRIBE, QUERY,
                admin::getOffsets);
        resource(routing, paths, Method.POST, "/topics/{topic}/offsets", Operation.ALTER,
                AdminHandler::setOffsetsParams,
                admin::setOffsets);
        // the groups it lists are those the client may describe
        resource(routing, paths, Method.GET, "/topics/{topic}/consumers", Operation.DESCRIBE, QUERY,
                admin::listConsumers);
        resource(routing, paths, Method.GET, "/topics/{topic}", Operation.DESCRIBE, NO_GROUP,
                admin::topicMetadata);
        clusterResource(routing, paths, Method.GET, "/topics", admin::listTopics);
        routing.get("/_ping", (req, res) -> res.send("pong"));
        paths.add("/_ping");
        routes.add(new RestRoute(Method.GET, "/_ping"));
        operatorRoute(routing, paths, "/inflight", inFlight::all);
        operatorRoute(routing, paths, "/inflight/{cluster}", inFlight::cluster);
        operatorRoute(routing, paths, "/inflight/{cluster}/{group}", inFlight::group);
        operatorRoute(routing, paths, InFlightPage.PATH, InFlightPage::send);
        routing.addFeature(new Fallbacks(paths));
    }

    /**
     * 405 for an API path with another method, Go's 404 for anything else. A feature weighing less than Helidon's
     * observe (80) and OpenAPI (90) features, so it comes after their routes as well as after the API's.
     */
    private record Fallbacks(Set<String> paths) implements HttpFeature, Weighted {

        @Override
        public void setup(HttpRouting.Builder routing) {
            for (String path : paths) {
                routing.route(method -> true, io.helidon.http.PathMatchers.create(path), (req, res) -> {
                    res.status(Status.METHOD_NOT_ALLOWED_405).send();
                });
            }
            routing.route(method -> true, io.helidon.http.PathMatchers.any(), (req, res) -> notFound(res));
        }

        @Override
        public double weight() {
            return 1;
        }
    }

    /** Go's {@code 404 page not found}, the original's answer to a path it does not serve. */
    static void notFound(ServerResponse res) {
        res.status(Status.NOT_FOUND_404);
        res.header(HeaderValues.create(HeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8"));
        res.send(NOT_FOUND_BODY);
    }

    /** Registers a GET route for operators, outside the API's cluster prefixes. */
    private void operatorRoute(HttpRouting.Builder routing, Set<String> paths, String path, Handler handler) {
        routing.route(Method.GET, path, (req, res) -> {
            try {
                handler.handle(req, res);
            } catch (PixyException e) {
                HttpErrors.send(res, e);
            }
        });
        paths.add(path);
        routes.add(new RestRoute(Method.GET, path));
    }

    /**
     * Registers {@code path} under both the default cluster and {@code /clusters/{cluster}}: a call whose client may
     * not do {@code operation} on the topic (and, where the resource takes a group, on the {@code group} its
     * parameters name, if any) is refused before the handler runs. The group is found in the parameters the handler
     * reads ({@code params}: the query's, or also a form body's); a group parameter a resource does not take
     * ({@link #NO_GROUP}) is ignored, as its handler ignores it: a produce naming one needs write on the topic only.
     */
    private void resource(HttpRouting.Builder routing, Set<String> paths, Method method, String path,
                          Operation operation, Function<ServerRequest, RequestParams> params, TopicHandler handler) {
        Handler h = (req, res) -> call((proxy, topic, rq, rs) -> {
            guard.checkLazily(RestAuth.client(rq), operation, topic,
                    () -> params == NO_GROUP ? null : namedGroup(params.apply(rq)));
            handler.handle(proxy, topic, rq, rs);
        }, req, res);
        add(routing, paths, method, path, h);
    }

    /**
     * The group the parameters name, for the permission check; null when they name none or name it so that the
     * handler will refuse the request with its own answer (no group, two, not UTF-8).
     */
    private static String namedGroup(RequestParams params) {
        try {
            String group = ConsumeParams.group(params);
            return group.isEmpty() ? null : group;
        } catch (PixyException noSingleGroup) {
            return null;
        }
    }

    /** Registers a resource without a topic, under both the default cluster and {@code /clusters/{cluster}}. */
    private void clusterResource(HttpRouting.Builder routing, Set<String> paths, Method method, String path,
                                 ClusterHandler handler) {
        Handler h = (req, res) -> call((proxy, topic, rq, rs) -> handler.handle(proxy, rq, rs), req, res);
        add(routing, paths, method, path, h);
    }

    private void add(HttpRouting.Builder routing, Set<String> paths, Method method, String path, Handler h) {
        for (String p : List.of(path, "/clusters/{cluster}" + path)) {
            routing.route(method, p, h);
            paths.add(p);
            routes.add(new RestRoute(method, p));
        }
    }

    private void call(TopicHandler handler, ServerRequest req, ServerResponse res) {
        try {
            var params = req.path().pathParameters();
            Proxy proxy = proxies.get(params.first("cluster").orElse(""));
            String topic = params.first("topic").orElse(null);
            if (topic != null) {
                TopicNames.validate(topic);
            }
            handler.handle(proxy, topic, req, res);
        } catch (PixyException e) {
            HttpErrors.send(res, e);
        } catch (CloseConnectionException e) {
            // the answer could not be written (the client is gone): Helidon closes the connection
            throw e;
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "Request failed: " + req.prologue(), e);
            HttpErrors.send(res, new PixyException(ErrorKind.INTERNAL, String.valueOf(e.getMessage()), e));
        }
    }

    @FunctionalInterface
    interface ClusterHandler {
        void handle(Proxy proxy, ServerRequest req, ServerResponse res);
    }

    @FunctionalInterface
    interface TopicHandler {
        void handle(Proxy proxy, String topic, ServerRequest req, ServerResponse res);
    }
}
