package io.kafkapixy.server.grpc;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

import io.grpc.Attributes;
import io.grpc.BindableService;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;

/**
 * A service whose request messages are parsed here, not by the transport: a message that is not valid protobuf
 * (truncated, wrong wire types, bad UTF-8 in a string) ends its call with INVALID_ARGUMENT. Helidon 4.5 parses
 * requests itself and, when that fails, logs the error and never answers, so such a call hung until the client's
 * deadline (forever without one). Found by {@code MalformedRequestsTest}.
 *
 * <p>Interceptors see the request as the raw {@code byte[]} it arrived as.
 */
public final class StrictRequestParsing {

    private StrictRequestParsing() {
    }

    /** The same service, taking its requests as bytes and parsing them as its own method descriptors say. */
    public static BindableService of(BindableService service) {
        return () -> of(service.bindService());
    }

    static ServerServiceDefinition of(ServerServiceDefinition service) {
        ServiceDescriptor original = service.getServiceDescriptor();
        ServiceDescriptor.Builder descriptor = ServiceDescriptor.newBuilder(original.getName())
                .setSchemaDescriptor(original.getSchemaDescriptor());
        ServerServiceDefinition.Builder definition = null;
        java.util.List<ServerMethodDefinition<byte[], ?>> methods = new java.util.ArrayList<>();
        for (ServerMethodDefinition<?, ?> m : service.getMethods()) {
            ServerMethodDefinition<byte[], ?> raw = raw(m);
            methods.add(raw);
            descriptor.addMethod(raw.getMethodDescriptor());
        }
        definition = ServerServiceDefinition.builder(descriptor.build());
        for (ServerMethodDefinition<byte[], ?> m : methods) {
            definition.addMethod(m);
        }
        return definition.build();
    }

    private static <Q, R> ServerMethodDefinition<byte[], R> raw(ServerMethodDefinition<Q, R> typed) {
        MethodDescriptor<Q, R> method = typed.getMethodDescriptor();
        MethodDescriptor<byte[], R> bytes = method.toBuilder(BYTES, method.getResponseMarshaller()).build();
        ServerCallHandler<byte[], R> handler = (call, headers) -> {
            ServerCall.Listener<Q> inner = typed.getServerCallHandler().startCall(new Typed<>(call, method), headers);
            return new ServerCall.Listener<>() {
                private boolean refused;
                private boolean received;

                @Override
                public void onMessage(byte[] message) {
                    if (refused) {
                        return;
                    }
                    if (received && method.getType().clientSendsOneMessage()) {
                        refused = true;
                        call.close(Status.INVALID_ARGUMENT.withDescription(
                                "invalid request: more than one message on a unary call"), new Metadata());
                        return;
                    }
                    received = true;
                    Q request;
                    try {
                        request = method.parseRequest(new ByteArrayInputStream(message));
                    } catch (RuntimeException e) {
                        refused = true;
                        call.close(Status.INVALID_ARGUMENT.withDescription("invalid request message: "
                                                                          + reason(e)), new Metadata());
                        return;
                    }
                    inner.onMessage(request);
                }

                @Override
                public void onHalfClose() {
                    if (!refused) {
                        inner.onHalfClose();
                    }
                }

                @Override
                public void onCancel() {
                    inner.onCancel();
                }

                @Override
                public void onComplete() {
                    inner.onComplete();
                }

                @Override
                public void onReady() {
                    inner.onReady();
                }
            };
        };
        return ServerMethodDefinition.create(bytes, handler);
    }

    /** The protobuf parser's own words, e.g. "Protocol message had invalid UTF-8.". */
    private static String reason(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }

    static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    /** The call as the typed handler expects it: everything goes to the transport's byte call. */
    private static final class Typed<Q, R> extends ServerCall<Q, R> {
        private final ServerCall<byte[], R> call;
        private final MethodDescriptor<Q, R> method;

        Typed(ServerCall<byte[], R> call, MethodDescriptor<Q, R> method) {
            this.call = call;
            this.method = method;
        }

        @Override
        public void request(int numMessages) {
            call.request(numMessages);
        }

        @Override
        public void sendHeaders(Metadata headers) {
            call.sendHeaders(headers);
        }

        @Override
        public void sendMessage(R message) {
            call.sendMessage(message);
        }

        @Override
        public void close(Status status, Metadata trailers) {
            call.close(status, trailers);
        }

        @Override
        public boolean isCancelled() {
            return call.isCancelled();
        }

        @Override
        public boolean isReady() {
            return call.isReady();
        }

        @Override
        public void setMessageCompression(boolean enabled) {
            call.setMessageCompression(enabled);
        }

        @Override
        public void setCompression(String compressor) {
            call.setCompression(compressor);
        }

        @Override
        public Attributes getAttributes() {
            return call.getAttributes();
        }

        @Override
        public String getAuthority() {
            return call.getAuthority();
        }

        @Override
        public MethodDescriptor<Q, R> getMethodDescriptor() {
            return method;
        }
    }
}
