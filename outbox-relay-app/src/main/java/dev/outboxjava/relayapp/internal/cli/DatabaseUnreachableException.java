package dev.outboxjava.relayapp.internal.cli;

import dev.outboxjava.core.OutboxException;

/** The database did not accept a connection; the command line exits with {@link ExitCodes#DATABASE_UNREACHABLE}. */
public final class DatabaseUnreachableException extends OutboxException {

    private static final long serialVersionUID = 1L;

    private final boolean waitingHelps;

    public DatabaseUnreachableException(String message, Throwable cause) {
        this(message, cause, false);
    }

    /** @param waitingHelps whether the database may accept a later attempt (down, starting up, full) */
    public DatabaseUnreachableException(String message, Throwable cause, boolean waitingHelps) {
        super(message, cause);
        this.waitingHelps = waitingHelps;
    }

    /**
     * Whether waiting may help: the database is down, starting up or out of connections, rather than
     * refusing these settings (a rejected login, a database that does not exist).
     */
    public boolean waitingHelps() {
        return waitingHelps;
    }
}
