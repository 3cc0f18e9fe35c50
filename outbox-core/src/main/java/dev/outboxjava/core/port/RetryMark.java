package dev.outboxjava.core.port;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One failed event to try again later.
 *
 * @param eventId       the event
 * @param error         why the attempt failed (stored as the last error)
 * @param nextAttemptAt not before this time
 */
public record RetryMark(UUID eventId, String error, Instant nextAttemptAt) {
    public RetryMark {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
    }
}
