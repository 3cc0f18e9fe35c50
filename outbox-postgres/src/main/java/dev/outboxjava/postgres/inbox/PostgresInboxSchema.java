package dev.outboxjava.postgres.inbox;

import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.postgres.internal.DdlScripts;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The inbox table's DDL: as a shipped migration file, as text for any configured table name, and
 * applied directly.
 *
 * <p><b>Migrations.</b> The module ships {@value #MIGRATION_RESOURCE}, the DDL for the default
 * table {@code outbox_inbox}. It is versioned 1.1 so that it sorts after the outbox's own
 * {@code V1__create_outbox_events.sql}: Flyway scans {@code classpath:db/outbox/postgresql}
 * recursively and therefore applies both (an unused, empty inbox table costs nothing). To create
 * only the inbox, point Flyway at {@code classpath:db/outbox/postgresql/inbox}. For another table
 * name, write {@link #ddl(PostgresInboxConfig)} into your own migration.
 *
 * <p><b>Quick starts and tests.</b> {@link #apply(DataSource, PostgresInboxConfig)} (or
 * {@link PostgresInbox#ensureSchema()}) runs the same DDL: idempotent ({@code IF NOT EXISTS}) and
 * serialized by an advisory lock, so several consumers may call it at start-up. The schema of a
 * qualified table name must already exist.
 */
public final class PostgresInboxSchema {

    /** Classpath location of the migration for the default table. */
    public static final String MIGRATION_RESOURCE = "db/outbox/postgresql/inbox/V1_1__create_outbox_inbox.sql";

    private PostgresInboxSchema() {
    }

    /** The DDL for the configured table name. */
    public static String ddl(PostgresInboxConfig config) {
        return InboxDdl.render(Objects.requireNonNull(config, "config").table());
    }

    /** The shipped migration file's text. */
    public static String migration() {
        return DdlScripts.resource(MIGRATION_RESOURCE);
    }

    /**
     * Creates the inbox table and its index if missing, in one transaction.
     *
     * @throws OutboxStoreException when the DDL fails (e.g. the schema does not exist, or no privilege)
     */
    public static void apply(DataSource dataSource, PostgresInboxConfig config) {
        Objects.requireNonNull(dataSource, "dataSource");
        String ddl = ddl(config);
        try {
            DdlScripts.applyLocked(dataSource, "outbox-ensure-inbox-schema:" + config.tableName(), ddl);
        } catch (SQLException e) {
            throw new OutboxStoreException("could not create inbox table " + config.tableName() + ": "
                    + e.getMessage() + (config.schemaName().isPresent()
                    ? " (does schema " + config.schemaName().get() + " exist?)" : ""), e);
        }
    }
}
