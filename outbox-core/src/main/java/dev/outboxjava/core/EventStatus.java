package dev.outboxjava.core;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Where an outbox event is in its life.
 *
 * <pre>
 *  append ──► PENDING ──lease──► IN_FLIGHT ──published──► SENT      (terminal)
 *               ▲                   │
 *               ├──retryable failure┤ (budget left; next attempt after backoff)
 *               ├──lease expired────┤ (sweeper; attempts unchanged)
 *               ├──released─────────┤ (ordering: after an earlier failure of the same key)
 *               │                   └──failure, budget spent──► FAILED (terminal, dead letter)
 *  FAILED ──requeue (operator)──► PENDING
 *  PENDING, after a failure ──dead-letter now (operator)──► FAILED
 * </pre>
 *
 * The legal moves are one table ({@link #TRANSITIONS}); {@link #checkTransition} enforces it.
 */
public enum EventStatus {
    /** Waiting for a relay; eligible once its next-attempt time has come. */
    PENDING("pending"),
    /** Leased by one relay, whose lease id guards every further change. */
    IN_FLIGHT("in_flight"),
    /** The broker acknowledged the event. Terminal. */
    SENT("sent"),
    /** The attempt budget is spent or the failure cannot be retried: a dead letter. Terminal until requeued. */
    FAILED("failed");

    private static final Map<EventStatus, Set<EventStatus>> TRANSITIONS;

    static {
        Map<EventStatus, Set<EventStatus>> table = new EnumMap<>(EventStatus.class);
        // to FAILED only by an operator's dead-letter-now of an event that waits for a retry
        table.put(PENDING, EnumSet.of(IN_FLIGHT, FAILED));
        table.put(IN_FLIGHT, EnumSet.of(SENT, PENDING, FAILED));
        table.put(SENT, EnumSet.noneOf(EventStatus.class));
        table.put(FAILED, EnumSet.of(PENDING));
        table.replaceAll((status, targets) -> Collections.unmodifiableSet(targets));
        TRANSITIONS = Collections.unmodifiableMap(table);
    }

    private final String databaseValue;

    EventStatus(String databaseValue) {
        this.databaseValue = databaseValue;
    }

    /** The lower-case name stored in the database's {@code status} column. */
    public String databaseValue() {
        return databaseValue;
    }

    /** Parses a {@link #databaseValue()}. */
    public static EventStatus fromDatabaseValue(String value) {
        for (EventStatus status : values()) {
            if (status.databaseValue.equals(value)) {
                return status;
            }
        }
        throw new OutboxException("unknown outbox status '" + value + "' in the database; expected one of "
                + "pending, in_flight, sent, failed (is the table written by a newer version of the library?)");
    }

    /** The states this one may move to. */
    public Set<EventStatus> allowedTargets() {
        return TRANSITIONS.get(this);
    }

    /** Whether the state machine has an edge from this state to {@code target}. */
    public boolean canMoveTo(EventStatus target) {
        return TRANSITIONS.get(this).contains(target);
    }

    /** Whether the relay is done with an event in this state (it is sent or dead-lettered). */
    public boolean isTerminal() {
        return this == SENT || this == FAILED;
    }

    /**
     * Returns {@code target} if the move is legal.
     *
     * @throws IllegalTransitionException naming the event, this state and the target otherwise
     */
    public EventStatus checkTransition(UUID eventId, EventStatus target) {
        if (!canMoveTo(target)) {
            throw new IllegalTransitionException(eventId, this, target);
        }
        return target;
    }
}
