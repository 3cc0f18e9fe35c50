package dev.outboxjava.worker.internal;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.OutboxStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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
 * (by a loop step), never once per scrape. Every worker of a table exports the same figures. A worker of many
 * outboxes gives each outbox's gauges the outbox's tags.
 */
public final class BacklogGauges {

    private final OutboxStore store;
    private final Clock clock;
    private final AtomicLong pending = new AtomicLong();
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicLong deadLetters = new AtomicLong();
    private final AtomicReference<Optional<Instant>> oldestPending = new AtomicReference<>(Optional.empty());
    private final AtomicReference<Backlog> backlog = new AtomicReference<>(Backlog.EMPTY);
    private final Iterable<Tag> tags;
    private final List<Meter> meters = new ArrayList<>();

    public BacklogGauges(OutboxStore store, Clock clock, MeterRegistry registry) {
        this(store, clock, registry, Tags.empty());
    }

    /** The gauges with {@code tags} on each (e.g. the outbox's {@code schema} and {@code table}). */
    public BacklogGauges(OutboxStore store, Clock clock, MeterRegistry registry, Iterable<Tag> tags) {
        this.tags = Objects.requireNonNull(tags, "tags");
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        meters.add(Gauge.builder("outbox.events.pending", pending, AtomicLong::get)
                .description("Events waiting to be published: eligible, retrying, scheduled and held (last poll)")
                .tags(tags)
                .register(registry));
        meters.add(Gauge.builder("outbox.events.in_flight", inFlight, AtomicLong::get)
                .description("Events leased by a relay (last poll)")
                .tags(tags)
                .register(registry));
        meters.add(Gauge.builder("outbox.events.dead_letters", deadLetters, AtomicLong::get)
                .description("Events in the dead letter state (last poll)")
                .tags(tags)
                .register(registry));
        meters.add(Gauge.builder("outbox.events.oldest_pending_age", this, BacklogGauges::oldestPendingAgeSeconds)
                .description("Age of the oldest pending event at the last poll, scheduled and retrying ones included; "
                        + "0 when none")
                .baseUnit("seconds")
                .tags(tags)
                .register(registry));
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
        meters.add(Gauge.builder("outbox.events.oldest_eligible_age", this, BacklogGauges::oldestEligibleAgeSeconds)
                .description("How long the eligible event that has waited longest has been due (the relay's lag; "
                        + "readiness compares it with outbox.health.max.lag); 0 when none")
                .baseUnit("seconds")
                .tags(tags)
                .register(registry));
    }

    private void backlogGauge(MeterRegistry registry, String name, ToLongFunction<Backlog> figure, String description) {
        meters.add(Gauge.builder(name, backlog, last -> figure.applyAsLong(last.get()))
                .description(description)
                .tags(tags)
                .register(registry));
    }

    /** Every gauge, e.g. to remove them once their outbox is let go. */
    public List<Meter> meters() {
        return List.copyOf(meters);
    }

    /** The pending events by what they wait for, at the last poll. */
    public Backlog lastBacklog() {
        return backlog.get();
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
