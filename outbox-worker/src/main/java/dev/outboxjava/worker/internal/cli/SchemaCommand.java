package dev.outboxjava.worker.internal.cli;

import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresSchema;
import dev.outboxjava.postgres.WakeUpMode;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code schema}: prints the DDL for a table name; needs no database. */
@Command(name = "schema", mixinStandardHelpOptions = true,
        description = {"Prints the DDL (table, indexes, autovacuum settings, optional NOTIFY trigger) for an outbox table, "
                + "for your migration tool or psql. Connects to nothing.",
                "Example: outbox-worker schema --table billing.outbox_events | psql \"$DATABASE_URL\""})
public final class SchemaCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--table", defaultValue = PostgresOutboxConfig.DEFAULT_TABLE_NAME, paramLabel = "NAME",
            description = "Table name, table or schema.table (default ${DEFAULT-VALUE}).")
    String table;

    @Option(names = "--notify-trigger", description = "Add a NOTIFY trigger, so every appending transaction wakes the "
            + "relays whoever appends; it costs producers 20-50 %% of their throughput. Without it (the default) "
            + "producers notify after commit (TransactionalOutbox, OutboxNotifier) or relays poll.")
    boolean notifyTrigger;

    @Override
    public Integer call() {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder().tableName(table)
                .wakeUpMode(notifyTrigger ? WakeUpMode.TRIGGER_NOTIFY : PostgresOutboxConfig.DEFAULT_WAKE_UP_MODE).build();
        spec.commandLine().getOut().println(PostgresSchema.ddl(config));
        spec.commandLine().getOut().flush();
        return ExitCodes.OK;
    }
}
