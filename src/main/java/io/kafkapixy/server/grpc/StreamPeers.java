package io.kafkapixy.server.grpc;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;

/**
 * Makes the client's address of a streaming {@code Consume} call known to the call ({@link #current()}), so that
 * operators see who holds a stream's messages. Other methods pass untouched: nothing is added to their cost.
 */
final class StreamPeers implements ServerInterceptor {

    private static final Context.Key<String> PEER = Context.key("kafkapixy-peer");

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                       ServerCallHandler<Q, R> next) {
        if (!call.getMethodDescriptor().getFullMethodName().endsWith("/Consume")) {
            return next.startCall(call, headers);
        }
        SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        return Contexts.interceptCall(Context.current().withValue(PEER, text(remote)), call, headers, next);
    }

    /** The calling client's {@code host:port} while a streaming Consume call starts; empty elsewhere. */
    static String current() {
        String peer = PEER.get();
        return peer == null ? "" : peer;
    }

    private static String text(SocketAddress remote) {
        if (remote instanceof InetSocketAddress a) {
            return a.getAddress() == null ? a.getHostString() + ":" + a.getPort()
                    : a.getAddress().getHostAddress() + ":" + a.getPort();
        }
        return remote == null ? "" : remote.toString();
    }
}
