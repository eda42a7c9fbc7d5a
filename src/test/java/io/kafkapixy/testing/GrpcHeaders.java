package io.kafkapixy.testing;

import io.grpc.ClientInterceptor;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;

/** Metadata a test's gRPC client sends with every call. */
public final class GrpcHeaders {

    private GrpcHeaders() {
    }

    /** {@code authorization: Bearer <token>}. */
    public static ClientInterceptor bearer(String token) {
        return header("authorization", "Bearer " + token);
    }

    /** One ASCII header. */
    public static ClientInterceptor header(String name, String value) {
        Metadata m = new Metadata();
        m.put(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER), value);
        return MetadataUtils.newAttachHeadersInterceptor(m);
    }
}
