package dev.outboxjava.core.port;

import java.util.Objects;
import java.util.UUID;

/**
 * One failed event to give up on.
 *
 * @param eventId the event
 * @param error   why the last attempt failed (stored as the last error)
 */
public record DeadLetterMark(UUID eventId, String error) {
    public DeadLetterMark {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(error, "error");
    }
}
