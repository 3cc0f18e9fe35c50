package dev.outboxjava.core.relay;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Remembers what the relay told its listener, as readable lines. */
final class RecordingListener implements RelayListener {

    final List<UUID> published = new ArrayList<>();
    final List<UUID> retried = new ArrayList<>();
    final List<String> retryReasons = new ArrayList<>();
    final List<UUID> deadLettered = new ArrayList<>();
    final List<UUID> leaseLost = new ArrayList<>();
    final List<RelayResult> ticks = new ArrayList<>();
    final List<PublishOutcome.Failed> failures = new ArrayList<>();

    @Override
    public synchronized void onFailed(OutboxEvent event, PublishOutcome.Failed failure) {
        failures.add(failure);
    }

    @Override
    public synchronized void onPublished(OutboxEvent event, Instant acknowledgedAt) {
        published.add(event.id());
    }

    @Override
    public synchronized void onRetryScheduled(OutboxEvent event, String reason, Instant nextAttemptAt) {
        retried.add(event.id());
        retryReasons.add(reason);
    }

    @Override
    public synchronized void onDeadLettered(OutboxEvent event, String reason, boolean retryable) {
        deadLettered.add(event.id());
    }

    @Override
    public synchronized void onLeaseLost(OutboxEvent event) {
        leaseLost.add(event.id());
    }

    @Override
    public synchronized void onTick(RelayResult result) {
        ticks.add(result);
    }
}
