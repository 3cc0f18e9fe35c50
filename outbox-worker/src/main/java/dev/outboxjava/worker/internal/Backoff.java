package dev.outboxjava.worker.internal;

import java.time.Duration;

/**
 * Exponential pause after consecutive failures: initial, 2×, 4×, ... capped at max. While a loop
 * pauses it probes the failing dependency every {@code probeInterval}, and ends the pause when the
 * dependency answers again: the pause spares a dependency that is down, never one that is back.
 */
public record Backoff(Duration initial, Duration max, Duration probeInterval) {

    /** How often a loop backing off probes whether the dependency is back: resumes within about a second. */
    public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofMillis(500);

    /** With the {@link #DEFAULT_PROBE_INTERVAL}. */
    public Backoff(Duration initial, Duration max) {
        this(initial, max, DEFAULT_PROBE_INTERVAL);
    }

    /** The pause after {@code failures} consecutive failed ticks (at least 1). */
    public Duration delayAfter(int failures) {
        if (failures < 1) {
            return Duration.ZERO;
        }
        int doublings = Math.min(failures - 1, 30);
        long nanos = initial.toNanos();
        for (int i = 0; i < doublings && nanos < max.toNanos(); i++) {
            nanos = Math.multiplyExact(nanos, 2L);
        }
        return nanos >= max.toNanos() ? max : Duration.ofNanos(nanos);
    }
}
