package io.kafkapixy.server.grpc;

import java.io.InputStream;

import io.grpc.Attributes;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * A service whose request messages are parsed here, not by grpc-java's server call: a message that is not valid
 * protobuf (truncated, wrong wire types, bad UTF-8 in a string) ends its call with INVALID_ARGUMENT and the parser's
 * own words, where grpc-java would answer a generic error, and a second message on a unary call gets
 * INVALID_ARGUMENT where grpc-java answers INTERNAL. Messages are parsed straight from the transport's stream.
 */
final class StrictRequestParsing {

    private StrictRequestParsing() {
    }

    /** A request as the transport delivered it: parsed, or refused with the parser's reason. */
    private sealed interface Parsed<Q> {
    }

    private record Message<Q>(Q message) implements Parsed<Q> {
    }

    private record Refused<Q>(Status status) implements Parsed<Q> {
    }

    /** The same service, parsing its requests as its own method descriptors say. */
    static ServerServiceDefinition of(ServerServiceDefinition service) {
        ServiceDescriptor original = service.getServiceDescriptor();
        ServiceDescriptor.Builder descriptor = ServiceDescriptor.newBuilder(original.getName())
                .setSchemaDescriptor(original.getSchemaDescriptor());
        java.util.List<ServerMethodDefinition<?, ?>> methods = new java.util.ArrayList<>();
        for (ServerMethodDefinition<?, ?> m : service.getMethods()) {
            ServerMethodDefinition<?, ?> strict = strict(m);
            methods.add(strict);
            descriptor.addMethod(strict.getMethodDescriptor());
        }
        ServerServiceDefinition.Builder definition = ServerServiceDefinition.builder(descriptor.build());
        methods.forEach(definition::addMethod);
        return definition.build();
    }

    private static <Q, R> ServerMethodDefinition<Parsed<Q>, R> strict(ServerMethodDefinition<Q, R> typed) {
        MethodDescriptor<Q, R> method = typed.getMethodDescriptor();
        MethodDescriptor<Parsed<Q>, R> lenient = method.toBuilder(marshaller(method), method.getResponseMarshaller())
                .build();
        ServerCallHandler<Parsed<Q>, R> handler = (call, headers) -> {
            ServerCall.Listener<Q> inner = typed.getServerCallHandler().startCall(new Typed<>(call, method), headers);
            return new ServerCall.Listener<>() {
                private boolean refused;
                private boolean received;

                @Override
                public void onMessage(Parsed<Q> message) {
                    if (refused) {
                        return;
                    }
                    if (received && method.getType().clientSendsOneMessage()) {
                        refuse(Status.INVALID_ARGUMENT.withDescription(
                                "invalid request: more than one message on a unary call"));
                        return;
                    }
                    received = true;
                    switch (message) {
                        case Message<Q> m -> inner.onMessage(m.message());
                        case Refused<Q> r -> refuse(r.status());
                    }
                }

                private void refuse(Status status) {
                    refused = true;
                    call.close(status, new Metadata());
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
        return ServerMethodDefinition.create(lenient, handler);
    }

    private static <Q> MethodDescriptor.Marshaller<Parsed<Q>> marshaller(MethodDescriptor<Q, ?> method) {
        return new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(Parsed<Q> value) {
                if (value instanceof Message<Q> m) {
                    return method.streamRequest(m.message());
                }
                throw new IllegalArgumentException("a refused request is never sent");
            }

            @Override
            public Parsed<Q> parse(InputStream stream) {
                try {
                    return new Message<>(method.parseRequest(stream));
                } catch (StatusRuntimeException e) {
                    // a message that grows past the size limit as it is decompressed
                    if (e.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED) {
                        return new Refused<>(e.getStatus());
                    }
                    return new Refused<>(invalid(e));
                } catch (RuntimeException e) {
                    return new Refused<>(invalid(e));
                }
            }
        };
    }

    private static Status invalid(Throwable e) {
        return Status.INVALID_ARGUMENT.withDescription("invalid request message: " + reason(e));
    }

    /** The protobuf parser's own words, e.g. "Protocol message had invalid UTF-8.". */
    private static String reason(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }

    /** The call as the typed handler expects it: everything goes to the transport's call. */
    private static final class Typed<Q, R> extends ServerCall<Q, R> {
        private final ServerCall<Parsed<Q>, R> call;
        private final MethodDescriptor<Q, R> method;

        Typed(ServerCall<Parsed<Q>, R> call, MethodDescriptor<Q, R> method) {
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
        public void setOnReadyThreshold(int numBytes) {
            call.setOnReadyThreshold(numBytes);
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
