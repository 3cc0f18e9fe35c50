package dev.outboxjava.core.port;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * One failed attempt to publish an event, as the store recorded it when the relay marked the failure:
 * the operator's answer to "why, and since when" beyond the last error.
 *
 * @param eventId the event
 * @param number  the attempt's number (1 for the first; it starts again at 1 after a requeue)
 * @param at      when the failure was marked
 * @param outcome what followed: another attempt later, or the dead letter
 * @param error   why it failed, as the relay described it (error kind first, e.g. {@code NO_ROUTE: ...})
 * @param leaseId the lease under which the attempt ran
 * @param stoppedBy of a dead letter's attempt, which rule stopped the attempts
 *                ({@link dev.outboxjava.core.DeadLetterReason#describe()}), when it was recorded
 */
public record Attempt(
        UUID eventId, int number, Instant at, Outcome outcome, String error, UUID leaseId, Optional<String> stoppedBy) {

    /** What followed a failed attempt. */
    public enum Outcome {
        /** The event waits for another attempt. */
        RETRY("retry"),
        /** The event became a dead letter. */
        DEAD_LETTER("dead-letter");

        private final String databaseValue;

        Outcome(String databaseValue) {
            this.databaseValue = databaseValue;
        }

        /** The value stored for it. */
        public String databaseValue() {
            return databaseValue;
        }

        /** The outcome stored as {@code value}. */
        public static Outcome fromDatabaseValue(String value) {
            for (Outcome outcome : values()) {
                if (outcome.databaseValue.equals(value)) {
                    return outcome;
                }
            }
            throw new IllegalArgumentException("unknown attempt outcome: " + value);
        }
    }

    public Attempt {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(leaseId, "leaseId");
        Objects.requireNonNull(stoppedBy, "stoppedBy");
    }

    /** An attempt without a recorded stop reason. */
    public Attempt(UUID eventId, int number, Instant at, Outcome outcome, String error, UUID leaseId) {
        this(eventId, number, at, outcome, error, leaseId, Optional.empty());
    }
}
