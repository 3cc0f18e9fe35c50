package dev.outboxjava.core;

/**
 * An event was rejected before it reached the outbox because one of its fields is unusable.
 * Nothing was written. {@link #field()} names the field, the message says why and what is allowed.
 */
public final class InvalidEventException extends OutboxException {

    private static final long serialVersionUID = 1L;

    private final String field;

    public InvalidEventException(String field, String reason) {
        super("invalid outbox event field '" + field + "': " + reason);
        this.field = field;
    }

    /** The name of the offending field, as in the {@link OutboxEvent} builder. */
    public String field() {
        return field;
    }
}
