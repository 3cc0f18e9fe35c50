package dev.outboxjava.worker.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.function.IntSupplier;

/** A sweeper or cleaner step: one tick, then wait for the interval; back off while the database is down. */
public final class PeriodicStep implements LoopStep {

    private final String name;
    private final IntSupplier tick;
    private final Duration interval;
    private final Backoff backoff;
    private final OutageTracker storeOutage;
    private final OutageTracker bug;
    private int consecutiveFailures;

    public PeriodicStep(String name, IntSupplier tick, Duration interval, Backoff backoff, OutageTracker storeOutage,
            OutageTracker bug) {
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
        try {
            tick.getAsInt();
        } catch (Throwable failure) {
            Failures.rethrowFatal(failure);
            if (Failures.isStoreOutage(failure)) {
                storeOutage.failed(Failures.describe(failure), failure);
            } else {
                bug.failed(name + " tick threw " + Failures.describe(failure), failure);
            }
            consecutiveFailures++;
            return Next.backoff(backoff.delayAfter(consecutiveFailures));
        }
        storeOutage.succeeded();
        bug.succeeded();
        consecutiveFailures = 0;
        return new Next(interval, false);
    }
}
