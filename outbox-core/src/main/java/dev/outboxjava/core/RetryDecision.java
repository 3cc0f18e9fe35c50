package dev.outboxjava.core;

import java.time.Instant;
import java.util.Optional;

/**
 * What {@link RetryPolicy#decide} chose for a failed event: another attempt at a time, or the dead
 * letter state.
 *
 * @param nextAttemptAt when to try again; empty means dead-letter the event
 */
public record RetryDecision(Optional<Instant> nextAttemptAt) {

    static RetryDecision retryAt(Instant when) {
        return new RetryDecision(Optional.of(when));
    }

    static RetryDecision deadLetter() {
        return new RetryDecision(Optional.empty());
    }

    /** Whether the event is given up on. */
    public boolean isDeadLetter() {
        return nextAttemptAt.isEmpty();
    }
}
