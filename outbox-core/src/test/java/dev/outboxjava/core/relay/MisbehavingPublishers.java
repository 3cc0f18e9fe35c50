package dev.outboxjava.core.relay;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/** Publishers that break the {@link Publisher} contract in the ways the relay must survive. */
final class MisbehavingPublishers {

    private MisbehavingPublishers() {}

    /** Never completes its future: the relay's publish timeout has to end the wait. */
    static Publisher neverCompleting() {
        return of((batch, timeout) -> new CompletableFuture<>());
    }

    /** Throws from {@code publish} instead of reporting per-event failures. */
    static Publisher throwing(RuntimeException failure) {
        return of((batch, timeout) -> {
            throw failure;
        });
    }

    /** Completes its future exceptionally. */
    static Publisher failingFuture(RuntimeException failure) {
        return of((batch, timeout) -> CompletableFuture.failedFuture(failure));
    }

    /** Returns no future at all. */
    static Publisher returningNull() {
        return of((batch, timeout) -> null);
    }

    private static Publisher of(BiFunction<List<OutboxEvent>, Duration, CompletableFuture<List<PublishOutcome>>> body) {
        return new Publisher() {
            @Override
            public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
                return body.apply(batch, timeout);
            }

            @Override
            public HealthCheck checkHealth() {
                return HealthCheck.down("misbehaving on purpose");
            }

            @Override
            public void close() {}
        };
    }
}
