package io.kafkapixy.server.http;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;

import io.helidon.common.buffers.BufferData;
import io.helidon.common.buffers.DataReader;
import io.helidon.common.buffers.DataWriter;
import io.helidon.common.concurrency.limits.Limit;
import io.helidon.common.socket.HelidonSocket;
import io.helidon.common.socket.PeerInfo;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.ListenerContext;
import io.helidon.webserver.ProxyProtocolData;
import io.helidon.webserver.Router;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http1.Http1ConnectionSelector;
import io.helidon.webserver.spi.ServerConnection;
import io.helidon.webserver.spi.ServerConnectionSelector;

/**
 * Serves connections that start with an HTTP/1.0 request (nginx's default {@code proxy_pass}, HAProxy's
 * {@code option httpchk}, ApacheBench), or whose first line has not ended in their first bytes (it may turn out to be
 * either version), with Helidon's own HTTP/1.1 connection, which reads them through
 * {@link Http10Requests} and answers through {@link Http10Answers}: the same routes, parsing, validation and error
 * answers as over HTTP/1.1, a request without {@code Host} accepted, the connection closed after each answer unless
 * the request asked {@code Connection: keep-alive}, and every answer with a {@code Content-Length}
 * ({@link Http10Entities}). Helidon 4 serves HTTP/1.1 and HTTP/2 only (github.com/helidon-io/helidon/issues/9604).
 */
public final class Http10Connections implements ServerConnectionSelector {

    /** Part of the {@link ConnectionContext#childSocketId()} of these connections, with a number of their own. */
    private static final String SOCKET_ID_PART = "/h1-";
    private static final byte[] HTTP2_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** For connections that start with an HTTP/1.0 request line: a request without {@code Host} is taken. */
    private final Http1ConnectionSelector http10;
    /** For connections whose first line had not ended: HTTP/1.1's rules, as they may well be HTTP/1.1. */
    private final Http1ConnectionSelector either;
    private final int maxHeadBytes;
    private final AtomicLong ids = new AtomicLong();
    /** The connections served here, by the socket id their requests carry. */
    private final Map<String, Http10Requests> open = new ConcurrentHashMap<>();

    /** Over HTTP/1.0, with the limits of the listener's HTTP/1.1 connections. */
    public Http10Connections(Http1Config http11) {
        Http1Config http10 = Http1Config.builder().from(http11)
                .validateRequestHostHeader(false)
                .sendKeepAliveHeader(true)
                .build();
        this.http10 = Http1ConnectionSelector.builder().config(http10).build();
        this.either = Http1ConnectionSelector.builder().config(http11).build();
        this.maxHeadBytes = http11.maxPrologueLength() + http11.maxHeadersSize() + 4;
    }

    /** Whether the request being answered on the connection with this {@code socketId} is an HTTP/1.0 request. */
    boolean answeringHttp10(String socketId) {
        Http10Requests requests = open.get(socketId);
        return requests != null && requests.answeringHttp10();
    }

    @Override
    public int bytesToIdentifyConnection() {
        return 0; // looks at whatever has arrived; Helidon keeps asking while the answer is "unknown"
    }

    @Override
    public Support supports(BufferData data) {
        byte[] start = new byte[Math.min(data.available(), NotHttpRequests.LOOK_AT)];
        data.read(start);
        return switch (NotHttpRequests.firstLine(start, start.length)) {
            case HTTP_1_0 -> Support.SUPPORTED;
            // Helidon's HTTP/1.1 selector claims a line that has not ended yet, and would answer it 505 if it were
            // HTTP/1.0; here each request is read as what it turns out to be (HTTP/1.1 passes unchanged)
            case UNKNOWN -> mayBeHttp2Preface(start) ? Support.UNKNOWN : Support.SUPPORTED;
            default -> Support.UNSUPPORTED;
        };
    }

    private static boolean mayBeHttp2Preface(byte[] start) {
        int n = Math.min(start.length, HTTP2_PREFACE.length);
        return Arrays.equals(start, 0, n, HTTP2_PREFACE, 0, n);
    }

    @Override
    public Set<String> supportedApplicationProtocols() {
        return Set.of();
    }

    @Override
    public ServerConnection connection(ConnectionContext ctx) {
        Http10Answers answers = new Http10Answers(ctx.dataWriter());
        Http10Requests requests = new Http10Requests(ctx.dataReader(), maxHeadBytes, answers::expectAnswer,
                answers::answerStarted);
        String id = ctx.childSocketId() + SOCKET_ID_PART + ids.incrementAndGet();
        open.put(id, requests);
        byte[] start = ctx.dataReader().getBuffer(Math.min(ctx.dataReader().available(), NotHttpRequests.LOOK_AT))
                .readBytes();
        Http1ConnectionSelector http1 = NotHttpRequests.firstLine(start, start.length)
                                        == NotHttpRequests.FirstLine.HTTP_1_0 ? http10 : either;
        ServerConnection http = http1.connection(new Http10Context(ctx, DataReader.create(requests), answers, id));
        return new Served(http, () -> open.remove(id));
    }

    /** Helidon's connection, forgotten here once it has ended. */
    private record Served(ServerConnection http, Runnable ended) implements ServerConnection {

        @Override
        public void handle(Limit limit) throws InterruptedException {
            try {
                http.handle(limit);
            } finally {
                ended.run();
            }
        }

        @Override
        public Duration idleTime() {
            return http.idleTime();
        }

        @Override
        public void close(boolean interrupt) {
            http.close(interrupt);
        }
    }

    /** The connection as Helidon's HTTP/1.1 connection sees it: translated bytes both ways, the rest as it is. */
    private record Http10Context(ConnectionContext socket, DataReader dataReader, DataWriter dataWriter,
                                 String childSocketId) implements ConnectionContext {

        @Override
        public ListenerContext listenerContext() {
            return socket.listenerContext();
        }

        @Override
        public ExecutorService executor() {
            return socket.executor();
        }

        @Override
        public Router router() {
            return socket.router();
        }

        @Override
        public Optional<ProxyProtocolData> proxyProtocolData() {
            return socket.proxyProtocolData();
        }

        @Override
        public HelidonSocket serverSocket() {
            return socket.serverSocket();
        }

        @Override
        public PeerInfo remotePeer() {
            return socket.remotePeer();
        }

        @Override
        public PeerInfo localPeer() {
            return socket.localPeer();
        }

        @Override
        public boolean isSecure() {
            return socket.isSecure();
        }

        @Override
        public String socketId() {
            return socket.socketId();
        }
    }
}
