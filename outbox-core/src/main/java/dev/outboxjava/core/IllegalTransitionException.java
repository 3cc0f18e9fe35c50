package dev.outboxjava.core;

import java.util.UUID;

/**
 * An event was asked to move between two states that its state machine does not connect
 * (see {@link EventStatus}). It signals a bug in a store adapter or an operator action on the
 * wrong event; the event itself is unchanged.
 */
public final class IllegalTransitionException extends OutboxException {

    private static final long serialVersionUID = 1L;

    private final UUID eventId;
    private final EventStatus from;
    private final EventStatus to;

    public IllegalTransitionException(UUID eventId, EventStatus from, EventStatus to) {
        super("event " + eventId + " cannot move from " + from + " to " + to + "; allowed from " + from + ": "
                + from.allowedTargets());
        this.eventId = eventId;
        this.from = from;
        this.to = to;
    }

    public UUID eventId() {
        return eventId;
    }

    public EventStatus from() {
        return from;
    }

    public EventStatus to() {
        return to;
    }
}
