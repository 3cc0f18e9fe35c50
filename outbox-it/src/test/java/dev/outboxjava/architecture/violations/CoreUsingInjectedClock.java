// Fixture for ArchitectureTest: what the time rule must still ALLOW in the core.
package dev.outboxjava.core.archviolation;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;

/** Time from an injected clock, a system-clock default that is not read here, and nanoTime for durations. */
public final class CoreUsingInjectedClock {

    private final Clock clock;

    public CoreUsingInjectedClock(Clock clock) {
        this.clock = clock;
    }

    public CoreUsingInjectedClock() {
        this(Clock.systemUTC());
    }

    public Instant now() {
        return clock.instant();
    }

    public Instant nowViaFactory() {
        return Instant.now(clock);
    }

    public LocalDateTime localNow() {
        return LocalDateTime.now(clock);
    }

    public static Duration elapsedSince(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }
}
