package dev.outboxjava.worker.internal;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.relay.RelayResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;

/**
 * Turns what the relay did into Micrometer meters: {@code outbox.events.published},
 * {@code outbox.events.failed} (tag {@code reason}: retryable / permanent / unroutable — a destination
 * that does not exist or routes the event nowhere),
 * {@code outbox.events.dead_lettered}, {@code outbox.events.lease_lost}, {@code outbox.events.released}
 * counters; {@code outbox.relay.batch.duration} (ticks that leased something) and
 * {@code outbox.events.commit_to_ack} (append to broker acknowledgement) timers.
 */
public final class MetricsRelayListener implements RelayListener {

    private final Counter published;
    private final Counter failedRetryable;
    private final Counter failedPermanent;
    private final Counter failedUnroutable;
    private final Counter deadLettered;
    private final Counter leaseLost;
    private final Counter released;
    private final Timer batchDuration;
    private final Timer commitToAck;

    public MetricsRelayListener(MeterRegistry registry) {
        published = Counter.builder("outbox.events.published")
                .description("Events the broker acknowledged and the store marked sent")
                .register(registry);
        failedRetryable = failed(registry, "retryable");
        failedPermanent = failed(registry, "permanent");
        failedUnroutable = failed(registry, "unroutable");
        deadLettered = Counter.builder("outbox.events.dead_lettered")
                .description("Events given up on (attempts spent or not retryable)")
                .register(registry);
        leaseLost = Counter.builder("outbox.events.lease_lost")
                .description("Marks refused because another relay owned the event by then")
                .register(registry);
        released = Counter.builder("outbox.events.released")
                .description("Events returned to pending untried")
                .register(registry);
        batchDuration = Timer.builder("outbox.relay.batch.duration")
                .description("Wall time of a relay tick that leased events: lease, publish, mark")
                .publishPercentileHistogram()
                .register(registry);
        commitToAck = Timer.builder("outbox.events.commit_to_ack")
                .description("From the event's creation (its append) to the broker's acknowledgement")
                .publishPercentileHistogram()
                .register(registry);
    }

    private static Counter failed(MeterRegistry registry, String reason) {
        return Counter.builder("outbox.events.failed")
                .tag("reason", reason)
                .description("Publish attempts that failed: retryable, permanent, or unroutable (missing exchange "
                        + "or topic, no route)")
                .register(registry);
    }

    @Override
    public void onPublished(OutboxEvent event, Instant acknowledgedAt) {
        published.increment();
        Duration latency = Duration.between(event.createdAt(), acknowledgedAt);
        if (!latency.isNegative()) {
            commitToAck.record(latency);
        }
    }

    @Override
    public void onFailed(OutboxEvent event, PublishOutcome.Failed failure) {
        (failure.unroutable() ? failedUnroutable : failure.retryable() ? failedRetryable : failedPermanent).increment();
    }

    @Override
    public void onDeadLettered(OutboxEvent event, String reason, boolean retryable) {
        deadLettered.increment();
    }

    @Override
    public void onReleased(OutboxEvent event) {
        released.increment();
    }

    @Override
    public void onLeaseLost(OutboxEvent event) {
        leaseLost.increment();
    }

    @Override
    public void onTick(RelayResult result) {
        if (result.leased() > 0) {
            batchDuration.record(result.elapsed());
        }
    }
}
