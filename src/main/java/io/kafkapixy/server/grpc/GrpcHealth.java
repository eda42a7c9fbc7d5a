package io.kafkapixy.server.grpc;

import java.time.Duration;
import java.util.Set;

import io.grpc.Context;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.kafkapixy.ops.Readiness;

/**
 * The standard {@code grpc.health.v1.Health} service. The whole server ({@code ""}), {@code KafkaPixy} and
 * {@code kafkapixy.stream.v1.PixyStream} are {@code SERVING} exactly when the instance is ready (see {@link Readiness}); other names are unknown.
 */
final class GrpcHealth extends HealthGrpc.HealthImplBase {

    /** The service names this server answers for: the server as a whole and the services of both protos. */
    static final Set<String> SERVICES = Set.of("", "KafkaPixy", "kafkapixy.stream.v1.PixyStream");
    static final Duration WATCH_INTERVAL = Duration.ofSeconds(1);

    private final Readiness readiness;
    private volatile boolean stopped;

    GrpcHealth(Readiness readiness) {
        this.readiness = readiness;
    }

    @Override
    public void check(HealthCheckRequest request, StreamObserver<HealthCheckResponse> response) {
        if (!SERVICES.contains(request.getService())) {
            response.onError(Status.NOT_FOUND.withDescription("unknown service " + request.getService())
                    .asRuntimeException());
            return;
        }
        response.onNext(HealthCheckResponse.newBuilder().setStatus(status()).build());
        response.onCompleted();
    }

    /**
     * Sends the status now and again whenever it changes, checked every {@link #WATCH_INTERVAL}, until cancelled.
     * The call's {@link Context} tells of the cancellation at once; the call itself only after this method returns,
     * since grpc-java delivers a call's events one at a time.
     */
    @Override
    public void watch(HealthCheckRequest request, StreamObserver<HealthCheckResponse> response) {
        ServerCallStreamObserver<HealthCheckResponse> call = (ServerCallStreamObserver<HealthCheckResponse>) response;
        boolean known = SERVICES.contains(request.getService());
        ServingStatus last = null;
        try {
            Context context = Context.current();
            while (!call.isCancelled() && !context.isCancelled()) {
                if (stopped) {
                    call.onCompleted();
                    return;
                }
                ServingStatus now = known ? status() : ServingStatus.SERVICE_UNKNOWN;
                if (now != last) {
                    call.onNext(HealthCheckResponse.newBuilder().setStatus(now).build());
                    last = now;
                }
                Thread.sleep(WATCH_INTERVAL);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException closed) {
            // the client went away between the check and the send
        }
    }

    /** Ends every watch (the server is stopping): each stream completes within {@link #WATCH_INTERVAL}. */
    void stop() {
        stopped = true;
    }

    private ServingStatus status() {
        return readiness.ready() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    }
}
