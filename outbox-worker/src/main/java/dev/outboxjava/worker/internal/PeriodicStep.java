package dev.outboxjava.worker.internal;

import dev.outboxjava.core.HealthCheck;
import java.time.Duration;
import java.util.Objects;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * A sweeper or cleaner step: one tick, then wait for the interval; back off while the database is
 * down, probing its health check meanwhile (when given one) to resume as soon as it answers.
 */
public final class PeriodicStep implements LoopStep {

    private final String name;
    private final IntSupplier tick;
    private final Duration interval;
    private final Backoff backoff;
    private final OutageTracker storeOutage;
    private final OutageTracker bug;
    private final Supplier<HealthCheck> storeHealth;
    private int consecutiveFailures;

    /** Without a health probe: a database outage is waited out for the whole backoff. */
    public PeriodicStep(
            String name,
            IntSupplier tick,
            Duration interval,
            Backoff backoff,
            OutageTracker storeOutage,
            OutageTracker bug) {
        this(name, tick, interval, backoff, storeOutage, bug, null);
    }

    /** @param storeHealth the database's health check, probed while backing off from its outage (null: none) */
    public PeriodicStep(
            String name,
            IntSupplier tick,
            Duration interval,
            Backoff backoff,
            OutageTracker storeOutage,
            OutageTracker bug,
            Supplier<HealthCheck> storeHealth) {
        this.storeHealth = storeHealth;
        this.name = Objects.requireNonNull(name, "name");
        this.tick = Objects.requireNonNull(tick, "tick");
        this.interval = Objects.requireNonNull(interval, "interval");
        this.backoff = Objects.requireNonNull(backoff, "backoff");
        this.storeOutage = Objects.requireNonNull(storeOutage, "storeOutage");
        this.bug = Objects.requireNonNull(bug, "bug");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Next step() {
        long outagesEndedBefore = storeOutage.outagesEnded();
        try {
            // the next tick comes after the interval however many rows this one handled
            var unused = tick.getAsInt();
        } catch (Throwable failure) {
            Failures.rethrowFatal(failure);
            consecutiveFailures++;
            Duration pause = backoff.delayAfter(consecutiveFailures);
            if (Failures.report(name, failure, storeOutage, bug, outagesEndedBefore) && storeHealth != null) {
                return Next.backoff(pause, backoff.probeInterval(), storeOutage.recoveryProbe(storeHealth));
            }
            return Next.backoff(pause);
        }
        storeOutage.succeeded();
        bug.succeeded();
        consecutiveFailures = 0;
        return new Next(interval, false);
    }
}
