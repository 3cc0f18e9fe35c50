package dev.outboxjava.postgres.inbox;

import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.postgres.internal.DdlScripts;
import dev.outboxjava.postgres.internal.MigrationFiles;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The inbox table's DDL: as shipped migration files, as text for any configured table name, and
 * applied directly.
 *
 * <p><b>Migrations.</b> The module ships the inbox table's versioned migrations in
 * {@value #MIGRATIONS_LOCATION}; the table's name is the placeholder {@value #TABLE_PLACEHOLDER}.
 * Run them with a Flyway of their own, with its own history table ({@value #HISTORY_TABLE}), as for the
 * outbox table (see {@code PostgresSchema}): their versions are the inbox's own and would clash with
 * the application's or the outbox's in a shared history. Liquibase: one {@code sqlFile} change per
 * file of {@link #migrationResources()}, with a changelog property {@code inbox_table}.
 *
 * <p><b>Quick starts and tests.</b> {@link #apply(DataSource, PostgresInboxConfig)} (or
 * {@link PostgresInbox#ensureSchema()}) runs the same DDL: idempotent ({@code IF NOT EXISTS}) and
 * serialized by an advisory lock, so several consumers may call it at start-up. The schema of a
 * qualified table name must already exist.
 */
public final class PostgresInboxSchema {

    /** Flyway location of the inbox table's versioned migrations. */
    public static final String MIGRATIONS_LOCATION = "classpath:" + MigrationFiles.INBOX_LOCATION;
    /** The placeholder (Flyway) or changelog property (Liquibase) that names the table in the migrations. */
    public static final String TABLE_PLACEHOLDER = MigrationFiles.INBOX_TABLE_PLACEHOLDER;
    /** The Flyway history table suggested for the inbox's migrations. */
    public static final String HISTORY_TABLE = "outbox_inbox_schema_history";

    private PostgresInboxSchema() {}

    /** The DDL for the configured table name. */
    public static String ddl(PostgresInboxConfig config) {
        return InboxDdl.render(Objects.requireNonNull(config, "config").table());
    }

    /** The classpath resources of the shipped migrations, in the order to apply them. */
    public static List<String> migrationResources() {
        return MigrationFiles.INBOX;
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
            throw new OutboxStoreException(
                    "could not create inbox table " + config.tableName() + ": "
                            + e.getMessage()
                            + (config.schemaName().isPresent()
                                    ? " (does schema " + config.schemaName().get() + " exist?)"
                                    : ""),
                    e);
        }
    }
}
