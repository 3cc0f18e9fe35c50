package dev.outboxjava.postgres;

import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.postgres.internal.DdlScripts;
import dev.outboxjava.postgres.internal.LayoutProbe;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.MigrationFiles;
import dev.outboxjava.postgres.internal.SchemaDdl;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outbox table's DDL: as shipped migration files, as text for a configuration, and applied directly.
 *
 * <p><b>Migrations.</b> The module ships the table's versioned migrations for the append-only layout (the
 * default, {@link StoreLayout#APPEND_LOG}, per-key indexes included) in {@value #APPEND_LOG_MIGRATIONS_LOCATION};
 * for the in-place layout, those in {@value #MIGRATIONS_LOCATION} and, for per-key ordering, a repeatable
 * migration with its two indexes in {@value #PER_KEY_MIGRATIONS_LOCATION}. The table's name is the
 * placeholder {@value #TABLE_PLACEHOLDER}. Run them with a Flyway of their own beside your application's,
 * with its own history table, so their versions can never clash with yours:
 *
 * <pre>{@code
 * Flyway.configure().dataSource(dataSource)
 *         .locations(PostgresSchema.APPEND_LOG_MIGRATIONS_LOCATION)  // in place: MIGRATIONS_LOCATION (+ PER_KEY_...)
 *         .table(PostgresSchema.APPEND_LOG_HISTORY_TABLE)            // in place: HISTORY_TABLE
 *         .placeholders(Map.of(PostgresSchema.TABLE_PLACEHOLDER, "outbox_events"))
 *         .baselineOnMigrate(true).baselineVersion("0")   // your tables already exist: start below V1
 *         .load().migrate();
 * }</pre>
 *
 * <p>Liquibase: one {@code sqlFile} change per file of {@link #migrationResources(PostgresOutboxConfig)},
 * with a changelog property {@code outbox_table} (the append-only layout's with {@code splitStatements="false"}:
 * its {@code DO} blocks must reach PostgreSQL whole). The NOTIFY trigger ({@link WakeUpMode#TRIGGER_NOTIFY})
 * is in no shipped file: take it from {@link #ddl(PostgresOutboxConfig)}, whose text is the shipped files
 * for the configuration followed by the trigger's statements.
 *
 * <p><b>Quick starts and tests.</b> {@link #apply(DataSource, PostgresOutboxConfig)} (or
 * {@code store.ensureSchema()}) runs the same DDL. It is idempotent ({@code IF NOT EXISTS},
 * {@code CREATE OR REPLACE}) and serialized by an advisory lock, so several instances may call it
 * at start-up. The schema of a qualified table name must already exist. Requires PostgreSQL 14+.
 */
public final class PostgresSchema {

    /**
     * Flyway location of the outbox table's versioned migrations in the in-place layout
     * ({@link StoreLayout#IN_PLACE}).
     */
    public static final String MIGRATIONS_LOCATION = "classpath:" + MigrationFiles.OUTBOX_LOCATION;
    /**
     * Flyway location of the outbox table's versioned migrations in the append-only layout
     * ({@link StoreLayout#APPEND_LOG}): instead of {@link #MIGRATIONS_LOCATION} and
     * {@link #PER_KEY_MIGRATIONS_LOCATION}, whatever the ordering, with the history table
     * {@link #APPEND_LOG_HISTORY_TABLE}.
     */
    public static final String APPEND_LOG_MIGRATIONS_LOCATION =
            "classpath:" + MigrationFiles.OUTBOX_APPEND_LOG_LOCATION;
    /** Flyway location of the in-place layout's per-key ordering indexes (one repeatable migration). */
    public static final String PER_KEY_MIGRATIONS_LOCATION = "classpath:" + MigrationFiles.OUTBOX_PER_KEY_LOCATION;
    /**
     * Flyway location of what the operator API ({@link dev.outboxjava.core.port.OperatorStore}, the web
     * console) needs: the audit table {@code <table>_audit} (who requeued, purged or edited what, and when)
     * and the indexes of the dead-letter filters. Give it a history table of its own
     * ({@link #OPERATOR_HISTORY_TABLE}) and the same {@link #TABLE_PLACEHOLDER}.
     */
    public static final String OPERATOR_MIGRATIONS_LOCATION = "classpath:" + MigrationFiles.OUTBOX_OPERATOR_LOCATION;
    /** The Flyway history table suggested for {@link #OPERATOR_MIGRATIONS_LOCATION}. */
    public static final String OPERATOR_HISTORY_TABLE = "outbox_operator_schema_history";
    /** The placeholder (Flyway) or changelog property (Liquibase) that names the table in the migrations. */
    public static final String TABLE_PLACEHOLDER = MigrationFiles.OUTBOX_TABLE_PLACEHOLDER;
    /**
     * The Flyway history table suggested for the in-place layout's migrations: not the application's, so
     * the two version sequences stay apart. One per outbox table when a database holds several.
     */
    public static final String HISTORY_TABLE = "outbox_schema_history";
    /**
     * The Flyway history table suggested for {@link #APPEND_LOG_MIGRATIONS_LOCATION}: not the in-place
     * layout's, whose versions it would otherwise take as its own on a converted table.
     */
    public static final String APPEND_LOG_HISTORY_TABLE = "outbox_append_log_schema_history";

    private static final Logger log = LoggerFactory.getLogger(PostgresSchema.class);

    private PostgresSchema() {}

    /**
     * The DDL the configuration needs: table, indexes (with the per-key ones when it orders per key) and
     * the wake-up trigger (created or dropped), for the configured table name (e.g. for the CLI's
     * {@code schema} command).
     */
    public static String ddl(PostgresOutboxConfig config) {
        String audit = "\n-- The operator API's audit table and indexes (the migrations in "
                + MigrationFiles.OUTBOX_OPERATOR_LOCATION + ").\n"
                + MigrationFiles.render(
                        MigrationFiles.OUTBOX_OPERATOR, MigrationFiles.OUTBOX_TABLE_PLACEHOLDER, config.table());
        if (config.layout() == StoreLayout.APPEND_LOG) {
            return LogLayoutDdl.render(config.table(), config.notifyChannel(), config.wakeUpMode()) + audit;
        }
        return SchemaDdl.render(config.table(), config.notifyChannel(), config.wakeUpMode(), config.ordering()) + audit;
    }

    /**
     * The classpath resources of the shipped migrations a configuration needs, in the order to apply
     * them: the table's versioned files, then the per-key indexes when it orders per key (in the
     * append-only layout, its versioned files alone).
     */
    public static List<String> migrationResources(PostgresOutboxConfig config) {
        if (config.layout() == StoreLayout.APPEND_LOG) {
            return MigrationFiles.OUTBOX_APPEND_LOG;
        }
        List<String> resources = new ArrayList<>(MigrationFiles.OUTBOX);
        if (config.ordering().isPerKey()) {
            resources.addAll(MigrationFiles.OUTBOX_PER_KEY);
        }
        return List.copyOf(resources);
    }

    /**
     * Converts an existing table of the in-place layout ({@link StoreLayout#IN_PLACE}) to the default
     * {@link StoreLayout#APPEND_LOG}, in one transaction. Stop the relays first; producers may keep
     * appending (they wait for the conversion's table lock). Events in flight become pending again and are
     * published again (at least once); retries, schedules, dead letters and sent events keep their state.
     *
     * @param config the table's configuration with {@code layout(StoreLayout.APPEND_LOG)}
     * @throws dev.outboxjava.core.InvalidConfigurationException naming {@code layout} when the configuration
     *                                                            is not for the append-only layout
     * @throws OutboxStoreException when there is no such table, when it is in the append-only layout already,
     *                              or when the conversion fails (nothing is changed then)
     */
    public static void convertToAppendLog(DataSource dataSource, PostgresOutboxConfig config) {
        Objects.requireNonNull(dataSource, "dataSource");
        if (config.layout() != StoreLayout.APPEND_LOG) {
            throw new dev.outboxjava.core.InvalidConfigurationException(
                    "layout",
                    "converting a table needs the " + "configuration of its new layout, APPEND_LOG, was "
                            + config.layout());
        }
        String ddl = LogLayoutDdl.convertFromInPlace(config.table(), config.notifyChannel(), config.wakeUpMode());
        try {
            Optional<StoreLayout> actual;
            try (Connection connection = dataSource.getConnection()) {
                actual = new LayoutProbe(config.table(), StoreLayout.APPEND_LOG).actual(connection);
            }
            if (actual.isEmpty() || actual.get() == StoreLayout.APPEND_LOG) {
                throw new OutboxStoreException("could not convert outbox table " + config.tableName() + ": "
                        + (actual.isEmpty() ? "there is no such table" : "it is in the append-only layout already"));
            }
            DdlScripts.applyLocked(dataSource, "outbox-ensure-schema:" + config.tableName(), ddl);
            log.info("outbox table {} converted to the append-only layout", config.tableName());
        } catch (SQLException e) {
            throw new OutboxStoreException(
                    "could not convert outbox table " + config.tableName() + " to the append-only layout: "
                            + e.getMessage(),
                    e);
        }
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
            log.info(
                    "outbox table {} is in place (created if it was missing; wake-up {}, channel {})",
                    config.tableName(),
                    config.wakeUpMode(),
                    config.notifyChannel());
        } catch (SQLException e) {
            throw new OutboxStoreException(
                    "could not create outbox table " + config.tableName() + ": "
                            + e.getMessage()
                            + (config.schemaName().isPresent()
                                    ? " (does schema " + config.schemaName().get() + " exist?)"
                                    : ""),
                    e);
        }
    }
}
