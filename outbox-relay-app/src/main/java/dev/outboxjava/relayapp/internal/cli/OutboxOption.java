package dev.outboxjava.relayapp.internal.cli;

import dev.outboxjava.relayapp.RelayAppConfig;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The {@code --table} option of every command that reads or changes the events of one outbox: which of the
 * configured outboxes it works on. Without it, the one configured; with many ({@code outbox.tables},
 * {@code outbox.discovery.schema.pattern}) it is required, so that no command changes a tenant's rows by
 * accident.
 */
final class OutboxOption {

    @Option(
            names = "--table",
            paramLabel = "SCHEMA.TABLE",
            description = "Which outbox, schema.table as 'status' labels it (a bare table is in public). "
                    + "Required when outbox.tables or outbox.discovery.schema.pattern name many outboxes; "
                    + "default: the one outbox (outbox.table).")
    String table;

    /**
     * The chosen outbox among those the settings name now (a discovery rule is asked at this moment).
     *
     * @throws picocli.CommandLine.ParameterException (exit 2) when {@code --table} is missing with many outboxes,
     *     or names none of them; the message lists them
     */
    ConfiguredOutboxes.Outbox choose(RelayAppConfig settings, CommandLine commandLine) {
        return ConfiguredOutboxes.resolve(settings).choose(table, commandLine);
    }
}
