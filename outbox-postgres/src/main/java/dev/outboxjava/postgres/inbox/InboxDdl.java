package dev.outboxjava.postgres.inbox;

import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.MigrationFiles;

/**
 * Writes the DDL of one inbox table: the shipped migration files for the configured table, so that
 * migration-tool users and {@code ensureSchema()} users get the same table. Every statement is idempotent.
 */
final class InboxDdl {

    private InboxDdl() {}

    static String render(Identifiers.TableName table) {
        return "-- Outbox for Java: the inbox table " + table.display() + " (the migrations in "
                + MigrationFiles.INBOX_LOCATION + ").\n"
                + MigrationFiles.render(MigrationFiles.INBOX, MigrationFiles.INBOX_TABLE_PLACEHOLDER, table);
    }
}
