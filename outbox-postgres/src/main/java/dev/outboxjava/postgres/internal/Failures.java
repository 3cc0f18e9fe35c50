package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.OutboxStoreException;
import java.sql.SQLException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.exception.DataAccessException;

/** Turns driver failures into {@link OutboxStoreException}s that say what was attempted and where. */
public final class Failures {

    private Failures() {}

    /** The relation PostgreSQL's "relation ... does not exist" names. */
    private static final Pattern MISSING_RELATION = Pattern.compile("relation \"([^\"]+)\" does not exist");

    /** Tables of the operator's migrations: named after the outbox table with these suffixes. */
    private static final List<String> OPERATOR_SUFFIXES =
            List.of(MigrationFiles.AUDIT_SUFFIX, MigrationFiles.ATTEMPTS_SUFFIX, MigrationFiles.WORKERS_SUFFIX);

    /**
     * What a statement that found a table missing says: which table, and the ways to create it (the standalone
     * worker's {@code schema} command, {@code ensureSchema()}, the shipped migrations).
     */
    static String missingTable(Identifiers.TableName table, String databaseMessage) {
        Matcher relation = MISSING_RELATION.matcher(databaseMessage);
        if (relation.find() && OPERATOR_SUFFIXES.stream().anyMatch(relation.group(1)::endsWith)) {
            return "the operator table " + relation.group(1) + " does not exist: create it with 'outbox-worker schema"
                    + " --table " + table.display() + " --apply', store.ensureSchema(), or the migrations in classpath:"
                    + MigrationFiles.OUTBOX_OPERATOR_LOCATION;
        }
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
        // 3F000: the table's schema does not exist (dropped with its tables), so neither does the table
        if ("42P01".equals(sqlState) || "3F000".equals(sqlState)) {
            message.append(" (").append(missingTable(table, rootMessage(cause))).append(')');
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
