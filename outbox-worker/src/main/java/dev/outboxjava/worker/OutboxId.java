package dev.outboxjava.worker;

import java.util.Objects;

/**
 * One outbox of a {@link MultiOutboxWorker}: a table in a schema of a database. Its parts are the tags
 * of the outbox's meters ({@code database}, {@code schema}, {@code table}).
 *
 * @param database the name the database was given in {@link MultiOutboxWorker.Builder#database}
 * @param schema   the table's schema ({@code public} when the table was configured unqualified)
 * @param table    the table's name, without its schema
 */
public record OutboxId(String database, String schema, String table) {

    public OutboxId {
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(table, "table");
    }

    /** {@code schema.table}. */
    public String qualifiedTable() {
        return schema + "." + table;
    }

    /** {@code schema.table (database name)}, as logs and health details name the outbox. */
    @Override
    public String toString() {
        return qualifiedTable() + " (database " + database + ")";
    }
}
