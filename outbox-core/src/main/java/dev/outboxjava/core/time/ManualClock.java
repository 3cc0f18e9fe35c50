package dev.outboxjava.core.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that moves only when told to: tests drive leases, backoff and retention with it instead
 * of sleeping. Thread-safe.
 */
public final class ManualClock extends Clock {

    private final AtomicReference<Instant> now;
    private final ZoneId zone;

    public ManualClock(Instant start) {
        this(new AtomicReference<>(Objects.requireNonNull(start, "start")), ZoneOffset.UTC);
    }

    private ManualClock(AtomicReference<Instant> now, ZoneId zone) {
        this.now = now;
        this.zone = zone;
    }

    /** A clock at 2024-01-01T00:00:00Z. */
    public static ManualClock startingAtEpochOf2024() {
        return new ManualClock(Instant.parse("2024-01-01T00:00:00Z"));
    }

    /** Moves the clock forward (or back, with a negative duration). */
    public ManualClock advance(Duration by) {
        now.updateAndGet(current -> current.plus(by));
        return this;
    }

    /** Sets the clock. */
    public ManualClock set(Instant instant) {
        now.set(Objects.requireNonNull(instant, "instant"));
        return this;
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    /** A view in another zone that shares this clock's time. */
    @Override
    public Clock withZone(ZoneId otherZone) {
        return new ManualClock(now, otherZone);
    }
}
