package dev.outboxjava.core;

/**
 * Root of every exception the library throws. Unchecked: callers that want to react catch this
 * type (or a subtype); the message always says what to change.
 */
public class OutboxException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public OutboxException(String message) {
        super(message);
    }

    public OutboxException(String message, Throwable cause) {
        super(message, cause);
    }
}
