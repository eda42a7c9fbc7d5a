package io.kafkapixy.admin;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.kafkapixy.errors.ErrorKind;
import io.kafkapixy.errors.PixyException;
import org.apache.kafka.common.KafkaFuture;

/** Waits for Admin API results; a failure becomes {@code ADMIN_FAILED} with {@code context: <cause>}. */
final class AdminCalls {

    private final Duration timeout;

    AdminCalls(Duration timeout) {
        this.timeout = timeout;
    }

    <T> T await(String context, KafkaFuture<T> future) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new Failure(context, e.getCause());
        } catch (TimeoutException e) {
            throw new PixyException(ErrorKind.ADMIN_FAILED, context + ": timed out after " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PixyException(ErrorKind.ADMIN_FAILED, context + ": interrupted");
        }
    }

    /** An Admin API call that Kafka answered with an error; callers map the causes they expect. */
    static final class Failure extends RuntimeException {
        Failure(String context, Throwable cause) {
            super(context + ": " + cause.getMessage(), cause, false, false);
        }

        PixyException asAdminFailure() {
            return new PixyException(ErrorKind.ADMIN_FAILED, getMessage(), getCause());
        }
    }
}
