package dev.outboxjava.postgres;

import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.postgres.internal.DdlScripts;
import dev.outboxjava.postgres.internal.SchemaDdl;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outbox table's DDL: as a shipped migration file, as text for any configured table name, and
 * applied directly.
 *
 * <p><b>Migrations.</b> The module ships {@value #MIGRATION_RESOURCE} — the DDL for the default
 * configuration (table {@code outbox_events}, no NOTIFY trigger: producers notify after commit, see
 * {@link WakeUpMode}). Flyway: add {@code classpath:db/outbox/postgresql} to {@code flyway.locations}.
 * Liquibase: a {@code sqlFile} change with {@code splitStatements="false"} (a trigger function, when
 * you render one with {@link WakeUpMode#TRIGGER_NOTIFY}, is dollar-quoted). For another table name or
 * the trigger, write {@link #ddl(PostgresOutboxConfig)} into your own migration.
 *
 * <p><b>Quick starts and tests.</b> {@link #apply(DataSource, PostgresOutboxConfig)} (or
 * {@code store.ensureSchema()}) runs the same DDL. It is idempotent ({@code IF NOT EXISTS},
 * {@code CREATE OR REPLACE}) and serialized by an advisory lock, so several instances may call it
 * at start-up. The schema of a qualified table name must already exist. Requires PostgreSQL 14+.
 */
public final class PostgresSchema {

    /** Classpath location of the migration for the default configuration. */
    public static final String MIGRATION_RESOURCE = "db/outbox/postgresql/V1__create_outbox_events.sql";

    private static final Logger log = LoggerFactory.getLogger(PostgresSchema.class);

    private PostgresSchema() {
    }

    /** The DDL for the configured table name, channel and wake-up mode (e.g. for the CLI's {@code schema} command). */
    public static String ddl(PostgresOutboxConfig config) {
        return SchemaDdl.render(config.table(), config.notifyChannel(), config.wakeUpMode(), config.ordering());
    }

    /** The shipped migration file's text. */
    public static String migration() {
        return DdlScripts.resource(MIGRATION_RESOURCE);
    }

    /**
     * Creates the table, its indexes and (per the wake-up mode) its trigger if missing, in one
     * transaction.
     *
     * @throws OutboxStoreException when the DDL fails (e.g. the schema does not exist, or no privilege)
     */
    public static void apply(DataSource dataSource, PostgresOutboxConfig config) {
        Objects.requireNonNull(dataSource, "dataSource");
        String ddl = ddl(config);
        try {
            DdlScripts.applyLocked(dataSource, "outbox-ensure-schema:" + config.tableName(), ddl);
            log.info("outbox table {} is in place (created if it was missing; wake-up {}, channel {})",
                    config.tableName(), config.wakeUpMode(), config.notifyChannel());
        } catch (SQLException e) {
            throw new OutboxStoreException("could not create outbox table " + config.tableName() + ": "
                    + e.getMessage() + (config.schemaName().isPresent()
                    ? " (does schema " + config.schemaName().get() + " exist?)" : ""), e);
        }
    }
}
