package dev.outboxjava.core.port;

import java.time.Instant;
import java.util.Objects;

/**
 * Failed events that share a cause, a destination and a type: the operator's answer to "why" at a
 * glance ({@link OperatorStore#failureGroups}).
 *
 * @param kind        dead letters, or events waiting for a retry
 * @param cause       the error with what varies taken out ({@link ErrorCause#of})
 * @param example     the last error of one of the events, as stored
 * @param destination the events' destination
 * @param type        the events' type
 * @param count       how many events
 * @param firstSeen   the earliest failed attempt recorded for these events
 * @param lastSeen    the latest failed attempt recorded for these events
 */
public record FailureGroup(
        Kind kind,
        String cause,
        String example,
        String destination,
        String type,
        long count,
        Instant firstSeen,
        Instant lastSeen) {

    /** Which failed events a group holds. */
    public enum Kind {
        /** Dead letters ({@link dev.outboxjava.core.EventStatus#FAILED}). */
        DEAD_LETTER,
        /** Pending events after at least one failed attempt. */
        RETRYING
    }

    public FailureGroup {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(cause, "cause");
        Objects.requireNonNull(example, "example");
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(firstSeen, "firstSeen");
        Objects.requireNonNull(lastSeen, "lastSeen");
    }

    /**
     * The dead letters of this group, as a filter: its destination and type exactly, and its cause
     * ({@link DeadLetterFilter#cause()}). For a group of retrying events, the dead letters its events
     * would join.
     */
    public DeadLetterFilter deadLetters() {
        return DeadLetterFilter.any()
                .withDestination(destination)
                .withType(type)
                .withCause(cause);
    }
}
