package dev.outboxjava.worker.internal;

import java.time.Duration;

/** Exponential pause after consecutive failures: initial, 2×, 4×, ... capped at max. */
public record Backoff(Duration initial, Duration max) {

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
