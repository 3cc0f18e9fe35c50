package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.OutboxStoreException;
import java.sql.SQLException;
import org.jooq.exception.DataAccessException;

/** Turns driver failures into {@link OutboxStoreException}s that say what was attempted and where. */
public final class Failures {

    /** Where the shipped migration lives, for hints. */
    public static final String MIGRATION_HINT =
            "create it with store.ensureSchema() or the migrations in " + "classpath:" + MigrationFiles.OUTBOX_LOCATION
                    + " (PostgresSchema.ddl(config) prints them for your table name)";

    private Failures() {}

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
            message.append(" (the table does not exist: ")
                    .append(MIGRATION_HINT)
                    .append(')');
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
