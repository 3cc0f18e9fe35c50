package dev.outboxjava.worker.testsupport;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.testkit.RecordingPublisher;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/** A broker that can be "down": every event fails retryably and the health check says so. */
public final class SwitchablePublisher implements Publisher {

    public final RecordingPublisher recording = new RecordingPublisher();
    public final AtomicInteger publishCalls = new AtomicInteger();
    public final AtomicInteger healthChecks = new AtomicInteger();
    private volatile boolean down;

    public void setDown(boolean value) {
        this.down = value;
    }

    @Override
    public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
        publishCalls.incrementAndGet();
        if (down) {
            return CompletableFuture.completedFuture(batch.stream()
                    .map(event -> PublishOutcome.failed(event.id(), "connection refused", true))
                    .toList());
        }
        return recording.publish(batch, timeout);
    }

    @Override
    public HealthCheck checkHealth() {
        healthChecks.incrementAndGet();
        return down ? HealthCheck.down("connection refused") : HealthCheck.up("test broker");
    }

    @Override
    public void close() {
        recording.close();
    }
}
