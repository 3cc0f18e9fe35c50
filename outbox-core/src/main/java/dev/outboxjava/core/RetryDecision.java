package dev.outboxjava.core;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link RetryPolicy#decide} chose for a failed event: another attempt at a time, or the dead
 * letter state and why.
 *
 * @param nextAttemptAt    when to try again; empty means dead-letter the event
 * @param deadLetterReason why the event is given up on; present exactly when {@code nextAttemptAt} is empty
 */
public record RetryDecision(Optional<Instant> nextAttemptAt, Optional<DeadLetterReason> deadLetterReason) {

    public RetryDecision {
        Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
        Objects.requireNonNull(deadLetterReason, "deadLetterReason");
        if (nextAttemptAt.isPresent() == deadLetterReason.isPresent()) {
            throw new IllegalArgumentException("a decision is either a next attempt or a dead letter with its reason");
        }
    }

    static RetryDecision retryAt(Instant when) {
        return new RetryDecision(Optional.of(when), Optional.empty());
    }

    static RetryDecision deadLetter(DeadLetterReason reason) {
        return new RetryDecision(Optional.empty(), Optional.of(reason));
    }

    /** Whether the event is given up on. */
    public boolean isDeadLetter() {
        return nextAttemptAt.isEmpty();
    }
}
