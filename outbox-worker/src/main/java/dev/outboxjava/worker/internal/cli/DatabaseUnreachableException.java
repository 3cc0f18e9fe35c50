package dev.outboxjava.worker.internal.cli;

import dev.outboxjava.core.OutboxException;

/** The database did not accept a connection; the command line exits with {@link ExitCodes#DATABASE_UNREACHABLE}. */
public final class DatabaseUnreachableException extends OutboxException {

    private static final long serialVersionUID = 1L;

    public DatabaseUnreachableException(String message, Throwable cause) {
        super(message, cause);
    }
}
