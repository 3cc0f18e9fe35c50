package dev.outboxjava.worker.internal;

import dev.outboxjava.core.EventStatus;
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

/**
 * The {@code outbox.events.pending}, {@code outbox.events.in_flight}, {@code outbox.events.dead_letters}
 * and {@code outbox.events.oldest_pending_age} gauges. A scrape reads the last polled values: the
 * database is asked once per poll interval (by a loop step), never once per scrape.
 */
public final class BacklogGauges {

    private final OutboxStore store;
    private final Clock clock;
    private final AtomicLong pending = new AtomicLong();
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicLong deadLetters = new AtomicLong();
    private final AtomicReference<Optional<Instant>> oldestPending = new AtomicReference<>(Optional.empty());

    public BacklogGauges(OutboxStore store, Clock clock, MeterRegistry registry) {
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        Gauge.builder("outbox.events.pending", pending, AtomicLong::get)
                .description("Events waiting to be published (last poll)").register(registry);
        Gauge.builder("outbox.events.in_flight", inFlight, AtomicLong::get)
                .description("Events leased by a relay (last poll)").register(registry);
        Gauge.builder("outbox.events.dead_letters", deadLetters, AtomicLong::get)
                .description("Events in the dead letter state (last poll)").register(registry);
        Gauge.builder("outbox.events.oldest_pending_age", this, BacklogGauges::oldestPendingAgeSeconds)
                .description("Age of the oldest pending event at the last poll; 0 when none")
                .baseUnit("seconds").register(registry);
    }

    /** Reads the figures from the store; returns how many events are pending. */
    public int poll() {
        Map<EventStatus, Long> counts = store.countByStatus();
        Optional<Instant> oldest = store.oldestPendingCreatedAt();
        pending.set(counts.getOrDefault(EventStatus.PENDING, 0L));
        inFlight.set(counts.getOrDefault(EventStatus.IN_FLIGHT, 0L));
        deadLetters.set(counts.getOrDefault(EventStatus.FAILED, 0L));
        oldestPending.set(oldest);
        return (int) Math.min(Integer.MAX_VALUE, pending.get());
    }

    private double oldestPendingAgeSeconds() {
        return oldestPending.get()
                .map(created -> Math.max(0, Duration.between(created, clock.instant()).toMillis()) / 1000.0)
                .orElse(0.0);
    }
}
