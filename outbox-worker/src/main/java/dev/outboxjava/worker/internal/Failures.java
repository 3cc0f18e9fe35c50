package dev.outboxjava.worker.internal;

import dev.outboxjava.core.OutboxStoreException;

/** Sorts a failed tick: a database outage, or a bug. A {@link VirtualMachineError} is never swallowed. */
final class Failures {

    private Failures() {}

    static void rethrowFatal(Throwable failure) {
        if (failure instanceof VirtualMachineError fatal) {
            throw fatal;
        }
    }

    static boolean isStoreOutage(Throwable failure) {
        return failure instanceof OutboxStoreException;
    }

    /**
     * Whether the failure is a lost or refused connection (the database did not answer at all), rather
     * than a statement the database refused: SQLSTATE class 08, a server shutting down or starting up
     * (57P01-57P03), a pool that could not get a connection, or a socket error.
     */
    static boolean isConnectionFailure(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.sql.SQLTransientConnectionException
                    || cause instanceof java.sql.SQLNonTransientConnectionException
                    || cause instanceof java.io.EOFException
                    || cause instanceof java.net.SocketException) {
                return true;
            }
            if (cause instanceof java.sql.SQLException sql
                    && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P"))) {
                return true;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }

    /**
     * Whether the database answered that a relation does not exist (SQLSTATE 42P01), or its schema does not
     * (3F000, the schema dropped with its tables): the outbox table is missing.
     */
    static boolean isMissingTable(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.sql.SQLException sql
                    && ("42P01".equals(sql.getSQLState()) || "3F000".equals(sql.getSQLState()))) {
                return true;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }

    /**
     * Tells the tracker a failed tick of {@code step} belongs to: the database's outage (and that the
     * database is unreachable, when the connection itself failed), or otherwise a bug.
     *
     * @param began the store tracker's {@link OutageTracker#outagesEnded()} when the tick began: a database
     *              failure of a tick under way when an outage ended belongs to that outage
     * @return whether it was the database's outage
     */
    static boolean report(String step, Throwable failure, OutageTracker storeOutage, OutageTracker bug, long began) {
        if (isStoreOutage(failure) && isMissingTable(failure)) {
            storeOutage.tableMissing(describe(failure), failure);
            return true;
        }
        if (isStoreOutage(failure)) {
            storeOutage.failed(describe(failure), failure, began);
            if (isConnectionFailure(failure)) {
                storeOutage.unreachable();
            }
            return true;
        }
        bug.failed(step + " tick threw " + describe(failure), failure);
        return false;
    }

    static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = failure.getMessage() != null
                ? failure.getMessage()
                : failure.getClass().getName();
        return root == failure ? message : message + " (cause: " + root + ")";
    }
}
