package dev.outboxjava.worker.internal;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.relay.Cleaner;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.relay.RelayResult;
import dev.outboxjava.core.relay.Sweeper;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.worker.OutboxId;
import dev.outboxjava.worker.OutboxWorkerConfig;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One outbox of a worker of many: its own store, relay, lease tracking, sweeper, cleaner and gauges, so
 * that its guarantees are a one-table worker's. A relay thread of the {@link FairScheduler} runs
 * {@link #step()} on it; the scheduler keeps when it is due next.
 *
 * <p>A step runs the housekeeping that is due (sweep, clean, gauges) and one relay tick (lease, publish,
 * mark). Its {@link FairScheduler.Outcome} tells the scheduler how soon to come back.
 */
public final class OutboxLane {

    private final OutboxId id;
    private final int weight;
    private final PostgresOutboxStore store;
    private final LeaseTrackingStore leases;
    private final Relay relay;
    private final Sweeper sweeper;
    private final Cleaner cleaner;
    private final BacklogGauges gauges;
    private final MetricsRelayListener metrics;
    private final OutboxWorkerConfig config;
    private final Clock clock;
    private final OutageTracker outage;
    private final OutageTracker bug;

    private long sweepDueNanos;
    private long cleanDueNanos;
    private long gaugesDueNanos;
    private volatile String lastFailure;

    /**
     * @param relayConfig the relay settings for this outbox (its ordering the store's)
     * @param listener told what the relay did besides this outbox's metrics (e.g. the application's listener)
     */
    public OutboxLane(
            OutboxId id,
            int weight,
            PostgresOutboxStore store,
            Publisher publisher,
            OutboxWorkerConfig config,
            RelayConfig relayConfig,
            Clock clock,
            MeterRegistry registry,
            RelayListener listener) {
        this.id = Objects.requireNonNull(id, "id");
        this.weight = weight;
        this.store = Objects.requireNonNull(store, "store");
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.leases = new LeaseTrackingStore(store);
        Tags tags = Tags.of("database", id.database(), "schema", id.schema(), "table", id.table());
        this.metrics = new MetricsRelayListener(registry, tags);
        this.gauges = new BacklogGauges(store, clock, registry, tags);
        this.relay = new Relay(
                leases,
                publisher,
                relayConfig,
                config.retryPolicy(),
                clock,
                new CompositeRelayListener(List.of(metrics, listener)));
        this.sweeper = new Sweeper(store, config.sweeper(), clock);
        this.cleaner = config.cleanerEnabled() ? new Cleaner(store, config.cleaner(), clock) : null;
        this.outage = new OutageTracker("outbox " + id, false, Clock.systemUTC());
        this.bug = new OutageTracker("relay of outbox " + id, true, Clock.systemUTC());
    }

    public OutboxId id() {
        return id;
    }

    public int weight() {
        return weight;
    }

    public PostgresOutboxStore store() {
        return store;
    }

    /** Runs the due housekeeping and one relay tick; never throws (except a {@link VirtualMachineError}). */
    public FairScheduler.Outcome step() {
        long now = System.nanoTime();
        long outagesEndedBefore = outage.outagesEnded();
        try {
            housekeeping(now);
            RelayResult result = relay.runOnce();
            outage.succeeded();
            bug.succeeded();
            lastFailure = null;
            if (result.leased() > 0 && result.published() == 0 && result.retried() + result.deadLettered() > 0) {
                lastFailure = result.leased() + " event(s) of the last batch failed, none was published";
                return FairScheduler.Outcome.REFUSED;
            }
            if (result.leased() == 0) {
                return FairScheduler.Outcome.EMPTY;
            }
            return result.leased() >= relay.settings().batchSize()
                    ? FairScheduler.Outcome.FULL
                    : FairScheduler.Outcome.SHORT;
        } catch (Throwable failure) {
            Failures.rethrowFatal(failure);
            Failures.report("relay of outbox " + id, failure, outage, bug, outagesEndedBefore);
            lastFailure = Failures.describe(failure);
            return FairScheduler.Outcome.FAILED;
        }
    }

    private void housekeeping(long now) {
        if (now - sweepDueNanos >= 0) {
            sweepDueNanos = now + config.sweepInterval().toNanos();
            sweeper.runOnce();
        }
        if (cleaner != null && now - cleanDueNanos >= 0) {
            cleanDueNanos = now + config.cleanInterval().toNanos();
            cleaner.runOnce();
        }
        if (now - gaugesDueNanos >= 0) {
            gaugesDueNanos = now + config.metricsPollInterval().toNanos();
            gauges.poll();
        }
    }

    /** Whether the store answers: a store outage's backoff ends early once it does. */
    public HealthCheck checkHealth() {
        return store.checkHealth();
    }

    /** The pending events by what they wait for, as the gauges last read them. */
    public Backlog lastBacklog() {
        return gauges.lastBacklog();
    }

    /** How long the eligible event that has waited longest has been due, at the last gauges poll. */
    public Duration lag() {
        return gauges.lastBacklog().oldestEligibleWait(clock.instant());
    }

    /** Why the last step failed; empty when it succeeded. */
    public Optional<String> lastFailure() {
        return Optional.ofNullable(lastFailure);
    }

    /** Ends every wait of this outbox's relay: for a shutdown whose time is up. */
    public void abandon() {
        relay.abandonInFlight();
    }

    /** Releases what this outbox's relay still holds back to pending; returns how many events. */
    public int releaseOutstanding(Instant now) {
        return leases.releaseOutstanding(now);
    }

    /** Removes this outbox's meters from {@code registry}: it is let go. */
    public void removeMeters(MeterRegistry registry) {
        List<Meter> meters = new ArrayList<>(metrics.meters());
        meters.addAll(gauges.meters());
        meters.forEach(registry::remove);
    }
}
