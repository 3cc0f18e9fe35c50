package dev.outboxjava.worker.internal;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.OutboxStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToLongFunction;

/**
 * The backlog gauges: {@code outbox.events.pending}, {@code outbox.events.in_flight},
 * {@code outbox.events.dead_letters}, {@code outbox.events.oldest_pending_age}, and the pending events by
 * what they wait for ({@link Backlog}): {@code outbox.events.eligible}, {@code outbox.events.retrying},
 * {@code outbox.events.scheduled}, {@code outbox.events.held} and {@code outbox.events.oldest_eligible_age}
 * (the relay's lag). A scrape reads the last polled values: the database is asked once per poll interval
 * (by a loop step), never once per scrape. Every worker of a table exports the same figures.
 */
public final class BacklogGauges {

    private final OutboxStore store;
    private final Clock clock;
    private final AtomicLong pending = new AtomicLong();
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicLong deadLetters = new AtomicLong();
    private final AtomicReference<Optional<Instant>> oldestPending = new AtomicReference<>(Optional.empty());
    private final AtomicReference<Backlog> backlog = new AtomicReference<>(Backlog.EMPTY);

    public BacklogGauges(OutboxStore store, Clock clock, MeterRegistry registry) {
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        Gauge.builder("outbox.events.pending", pending, AtomicLong::get)
                .description("Events waiting to be published: eligible, retrying, scheduled and held (last poll)")
                .register(registry);
        Gauge.builder("outbox.events.in_flight", inFlight, AtomicLong::get)
                .description("Events leased by a relay (last poll)")
                .register(registry);
        Gauge.builder("outbox.events.dead_letters", deadLetters, AtomicLong::get)
                .description("Events in the dead letter state (last poll)")
                .register(registry);
        Gauge.builder("outbox.events.oldest_pending_age", this, BacklogGauges::oldestPendingAgeSeconds)
                .description("Age of the oldest pending event at the last poll, scheduled and retrying ones included; "
                        + "0 when none")
                .baseUnit("seconds")
                .register(registry);
        backlogGauge(
                registry,
                "outbox.events.eligible",
                Backlog::eligible,
                "Pending events due now and not held back by their key (last poll)");
        backlogGauge(
                registry,
                "outbox.events.retrying",
                Backlog::retrying,
                "Pending events that failed and wait for their next attempt (last poll)");
        backlogGauge(
                registry,
                "outbox.events.scheduled",
                Backlog::scheduled,
                "Pending events never tried whose first attempt is later, set with availableAt (last poll)");
        backlogGauge(
                registry,
                "outbox.events.held",
                Backlog::held,
                "Due events held back by an earlier event of their key that waits for a retry, is scheduled, "
                        + "or was dead-lettered (per-key ordering; last poll)");
        Gauge.builder("outbox.events.oldest_eligible_age", this, BacklogGauges::oldestEligibleAgeSeconds)
                .description("How long the eligible event that has waited longest has been due (the relay's lag; "
                        + "readiness compares it with outbox.health.max.lag); 0 when none")
                .baseUnit("seconds")
                .register(registry);
    }

    private void backlogGauge(MeterRegistry registry, String name, ToLongFunction<Backlog> figure, String description) {
        Gauge.builder(name, backlog, last -> figure.applyAsLong(last.get()))
                .description(description)
                .register(registry);
    }

    /** Reads the figures from the store; returns how many events are pending. */
    public int poll() {
        Map<EventStatus, Long> counts = store.countByStatus();
        Optional<Instant> oldest = store.oldestPendingCreatedAt();
        Backlog now = store.backlog(clock.instant());
        pending.set(counts.getOrDefault(EventStatus.PENDING, 0L));
        inFlight.set(counts.getOrDefault(EventStatus.IN_FLIGHT, 0L));
        deadLetters.set(counts.getOrDefault(EventStatus.FAILED, 0L));
        oldestPending.set(oldest);
        backlog.set(now);
        return (int) Math.min(Integer.MAX_VALUE, pending.get());
    }

    private double oldestPendingAgeSeconds() {
        return oldestPending
                .get()
                .map(created ->
                        Math.max(0, Duration.between(created, clock.instant()).toMillis()) / 1000.0)
                .orElse(0.0);
    }

    private double oldestEligibleAgeSeconds() {
        return backlog.get().oldestEligibleWait(clock.instant()).toMillis() / 1000.0;
    }
}
