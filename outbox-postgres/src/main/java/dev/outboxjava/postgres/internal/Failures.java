package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.OutboxStoreException;
import java.sql.SQLException;
import org.jooq.exception.DataAccessException;

/** Turns driver failures into {@link OutboxStoreException}s that say what was attempted and where. */
public final class Failures {

    private Failures() {}

    /**
     * What a statement that found no outbox table says: which table, and the ways to create it (the standalone
     * worker's {@code schema} command, {@code ensureSchema()}, the shipped migrations).
     */
    static String missingTable(Identifiers.TableName table) {
        return "the outbox table " + table.display() + " does not exist (dropped, or not created yet): create it with"
                + " 'outbox-worker schema --table " + table.display() + "' (prints the DDL; --apply runs it),"
                + " store.ensureSchema(), or the migrations in classpath:" + MigrationFiles.OUTBOX_APPEND_LOG_LOCATION
                + " (append-only layout) or classpath:" + MigrationFiles.OUTBOX_LOCATION + " (in place)";
    }

    /**
     * @param attempted what the library tried, e.g. "lease up to 100 events"
     * @param table     the table's configured name
     */
    public static OutboxStoreException wrap(String attempted, Identifiers.TableName table, Exception cause) {
        String sqlState = sqlState(cause);
        StringBuilder message = new StringBuilder("could not ")
                .append(attempted)
                .append(" in outbox table ")
                .append(table.display());
        message.append(": ").append(rootMessage(cause));
        if ("42P01".equals(sqlState)) {
            message.append(" (").append(missingTable(table)).append(')');
        } else if ("42703".equals(sqlState)) {
            message.append(" (a column is missing: the table was not created by this library's migration)");
        } else if ("23505".equals(sqlState)) {
            message.append(" (an event id is already in the outbox: every event needs a new id)");
        } else if (sqlState != null && sqlState.startsWith("08")) {
            message.append(" (the database connection failed; the relay retries once it is back)");
        }
        return new OutboxStoreException(message.toString(), cause);
    }

    static String sqlState(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                return sql.getSQLState();
            }
            if (t instanceof DataAccessException dae
                    && dae.sqlState() != null
                    && !"HY000".equals(dae.sqlState())
                    && !dae.sqlState().isEmpty()) {
                return dae.sqlState();
            }
        }
        return null;
    }

    private static String rootMessage(Throwable error) {
        Throwable t = error;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String message = t.getMessage();
        return message == null ? t.getClass().getSimpleName() : message.replace('\n', ' ');
    }
}
