package dev.outboxjava.relayapp.internal.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresSchema;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.relayapp.ConfigKey;
import dev.outboxjava.relayapp.DatabaseConfig;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.relayapp.internal.DataSources;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code schema}: the DDL the configuration needs (table, indexes, with the per-key ones when
 * {@code outbox.ordering=per_key}), printed, or applied with {@code --apply}.
 */
@Command(
        name = "schema",
        mixinStandardHelpOptions = true,
        description = {
            "Prints the DDL the settings need: the outbox table, its indexes (with the two per-key "
                    + "indexes when "
                    + "outbox.ordering=per_key), autovacuum settings and the optional NOTIFY trigger, "
                    + "for your migration tool or psql. Reads outbox.table and outbox.ordering from OUTBOX_* "
                    + "environment variables or --config; connects to nothing unless --apply.",
            "Example: OUTBOX_ORDERING=per_key outbox-worker schema --table billing.outbox_events | psql \"$DATABASE_URL\"",
            "The same statements ship as Flyway/Liquibase migrations in classpath:db/outbox/postgresql/outbox "
                    + "and .../outbox-per-key (placeholder outbox_table)."
        })
public final class SchemaCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    ConfigOptions config;

    @Option(
            names = "--table",
            paramLabel = "NAME",
            description = "Table name, table or schema.table (default: outbox.table, else "
                    + PostgresOutboxConfig.DEFAULT_TABLE_NAME + ").")
    String table;

    @Option(
            names = "--notify-trigger",
            description = "Add a NOTIFY trigger, so every appending transaction wakes the "
                    + "relays whoever appends; it costs producers 20-50 %% of their throughput. Without it (the default) "
                    + "producers notify after commit (TransactionalOutbox, OutboxNotifier) or relays poll, and the DDL "
                    + "drops a trigger left from earlier.")
    boolean notifyTrigger;

    @Option(
            names = "--apply",
            description = "Run the DDL on outbox.db.url instead of printing it (idempotent: "
                    + "creates what is missing, in one transaction).")
    boolean apply;

    @Override
    public Integer call() {
        RelayAppConfig settings = config.load();
        String tableName = table != null ? table : settings.table();
        PostgresOutboxConfig schema = PostgresOutboxConfig.builder()
                .tableName(tableName)
                .ordering(settings.worker().relay().ordering())
                .layout(settings.layout())
                .wakeUpMode(notifyTrigger ? WakeUpMode.TRIGGER_NOTIFY : PostgresOutboxConfig.DEFAULT_WAKE_UP_MODE)
                .build();
        PrintWriter out = spec.commandLine().getOut();
        if (!apply) {
            out.println(PostgresSchema.ddl(schema));
            out.flush();
            return ExitCodes.OK;
        }
        DatabaseConfig database = settings.requireDatabase();
        DatabaseProbe.requireReachable(database);
        try (HikariDataSource dataSource = DataSources.pool(new DatabaseConfig(
                database.url(), database.user(), database.password(), 1, tableName, database.completionMode()))) {
            PostgresSchema.apply(dataSource, schema);
        }
        out.println("outbox table " + tableName + " is in place (" + ConfigKey.ORDERING.property() + "="
                + (schema.ordering().isPerKey() ? "per_key, with the per-key indexes" : "none")
                + (notifyTrigger ? ", with the NOTIFY trigger" : ", without a NOTIFY trigger") + ", "
                + ConfigKey.STORE_LAYOUT.property() + "="
                + schema.layout().name().toLowerCase(java.util.Locale.ROOT)
                + ")");
        out.flush();
        return ExitCodes.OK;
    }
}
