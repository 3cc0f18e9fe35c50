package dev.outboxjava.core;

/**
 * A store could not do what was asked, usually because the database is unreachable or refused the
 * statement. The relay loops treat it as an outage: back off, try again, lose nothing.
 */
public class OutboxStoreException extends OutboxException {

    private static final long serialVersionUID = 1L;

    public OutboxStoreException(String message, Throwable cause) {
        super(message, cause);
    }

    public OutboxStoreException(String message) {
        super(message);
    }
}
