package dev.outboxjava.core.port;

import dev.outboxjava.core.DeadLetterReason;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * One failed event to give up on.
 *
 * @param eventId the event
 * @param error   why the last attempt failed (stored as the last error)
 * @param reason  which rule stopped the attempts, recorded with the last attempt ({@link Attempt#stoppedBy()})
 */
public record DeadLetterMark(UUID eventId, String error, Optional<DeadLetterReason> reason) {
    public DeadLetterMark {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(reason, "reason");
    }

    /** A mark without a recorded reason. */
    public DeadLetterMark(UUID eventId, String error) {
        this(eventId, error, Optional.empty());
    }
}
