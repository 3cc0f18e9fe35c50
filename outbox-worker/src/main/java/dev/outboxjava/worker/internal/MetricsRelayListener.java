package dev.outboxjava.worker.internal;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.relay.RelayResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Turns what the relay did into Micrometer meters: {@code outbox.events.published},
 * {@code outbox.events.failed} (tag {@code reason}: retryable / permanent / unroutable — a destination
 * that does not exist or routes the event nowhere),
 * {@code outbox.events.dead_lettered}, {@code outbox.events.lease_lost}, {@code outbox.events.released}
 * counters; {@code outbox.relay.batch.duration} (ticks that leased something) and
 * {@code outbox.events.commit_to_ack} (append to broker acknowledgement) timers. A worker of many outboxes
 * gives each outbox's listener the outbox's tags.
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
        this(registry, Tags.empty());
    }

    /** The meters with {@code tags} on each (e.g. the outbox's {@code schema} and {@code table}). */
    public MetricsRelayListener(MeterRegistry registry, Iterable<Tag> tags) {
        published = Counter.builder("outbox.events.published")
                .description("Events the broker acknowledged and the store marked sent")
                .tags(tags)
                .register(registry);
        failedRetryable = failed(registry, tags, "retryable");
        failedPermanent = failed(registry, tags, "permanent");
        failedUnroutable = failed(registry, tags, "unroutable");
        deadLettered = Counter.builder("outbox.events.dead_lettered")
                .description("Events given up on (attempts spent or not retryable)")
                .tags(tags)
                .register(registry);
        leaseLost = Counter.builder("outbox.events.lease_lost")
                .description("Marks refused because another relay owned the event by then")
                .tags(tags)
                .register(registry);
        released = Counter.builder("outbox.events.released")
                .description("Events returned to pending untried")
                .tags(tags)
                .register(registry);
        batchDuration = Timer.builder("outbox.relay.batch.duration")
                .description("Wall time of a relay tick that leased events: lease, publish, mark")
                .publishPercentileHistogram()
                .tags(tags)
                .register(registry);
        commitToAck = Timer.builder("outbox.events.commit_to_ack")
                .description("From the event's creation (its append) to the broker's acknowledgement")
                .publishPercentileHistogram()
                .tags(tags)
                .register(registry);
    }

    /** Every meter of this listener, e.g. to remove them once their outbox is let go. */
    public List<Meter> meters() {
        return List.of(
                published,
                failedRetryable,
                failedPermanent,
                failedUnroutable,
                deadLettered,
                leaseLost,
                released,
                batchDuration,
                commitToAck);
    }

    private static Counter failed(MeterRegistry registry, Iterable<Tag> tags, String reason) {
        return Counter.builder("outbox.events.failed")
                .tags(tags)
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
