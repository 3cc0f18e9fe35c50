package dev.outboxjava.relayapp.internal.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.relayapp.ConfigKey;
import dev.outboxjava.relayapp.DatabaseConfig;
import dev.outboxjava.relayapp.OutboxesConfig;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.relayapp.internal.DataSources;
import dev.outboxjava.relayapp.internal.StandaloneOutboxes;
import dev.outboxjava.worker.OutboxTables;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The outboxes an operator command may look at, as {@code run} would relay them now: the one
 * {@code outbox.table}, the tables of {@code outbox.tables}, or what {@code outbox.discovery.schema.pattern}
 * finds in the database when the command runs (the worker's own discovery, so both agree).
 */
final class ConfiguredOutboxes {

    /**
     * One outbox.
     *
     * @param schema   its schema, {@code public} for an unqualified table
     * @param table    its table without the schema
     * @param database the settings that reach it: the process's, with this outbox's table
     */
    record Outbox(String schema, String table, DatabaseConfig database) {

        /** {@code schema.table}, as {@code status} labels it and {@code --table} names it. */
        String name() {
            return schema + "." + table;
        }
    }

    private final List<Outbox> outboxes;
    private final Optional<OutboxesConfig> many;

    private ConfiguredOutboxes(List<Outbox> outboxes, Optional<OutboxesConfig> many) {
        this.outboxes = List.copyOf(outboxes);
        this.many = many;
    }

    /**
     * The outboxes of the settings; a discovery rule asks the database (exit 3 when it cannot be reached).
     */
    static ConfiguredOutboxes resolve(RelayAppConfig settings) {
        DatabaseConfig database = settings.requireDatabase();
        if (settings.outboxes().isEmpty()) {
            String table = database.table();
            int dot = table.indexOf('.');
            String schema = dot < 0 ? "public" : table.substring(0, dot);
            return new ConfiguredOutboxes(
                    List.of(new Outbox(schema, table.substring(dot + 1), database)), Optional.empty());
        }
        OutboxTables tables = StandaloneOutboxes.tables(settings);
        List<OutboxTables.Entry> entries;
        if (tables.isDiscovered()) {
            DatabaseProbe.requireReachable(database);
            try (HikariDataSource pool = DataSources.pool(withTable(database, database.table(), 1))) {
                entries = tables.resolve(pool);
            }
        } else {
            // a listed table needs no database to be named; a missing one is each command's to report
            entries = tables.resolve(null);
        }
        return new ConfiguredOutboxes(
                entries.stream()
                        .map(entry -> new Outbox(
                                entry.schema(),
                                entry.table(),
                                // the worker's own table name, so a requeue's wake-up reaches its channel
                                withTable(database, entry.config().tableName(), database.poolSize())))
                        .toList(),
                settings.outboxes());
    }

    /** Whether the settings name many outboxes ({@code outbox.tables} or a discovery rule), not one table. */
    boolean many() {
        return many.isPresent();
    }

    /** The outboxes, in the order of the list or by schema name for a discovery rule. */
    List<Outbox> all() {
        return outboxes;
    }

    /**
     * The outbox {@code --table} names, or the one configured when it names none.
     *
     * @param table        the {@code --table} value, {@code schema.table} or {@code table} (in {@code public}); null
     *                     when not given
     * @param commandLine  the command, whose usage error (exit 2) a wrong or missing {@code --table} is
     * @throws ParameterException when {@code --table} is missing with many outboxes, or names none of them
     */
    Outbox choose(String table, CommandLine commandLine) {
        if (table == null) {
            if (outboxes.size() == 1) {
                return outboxes.get(0);
            }
            if (outboxes.isEmpty()) {
                throw new ParameterException(commandLine, "no outbox to work on: " + describe());
            }
            throw new ParameterException(
                    commandLine,
                    "name the outbox with --table SCHEMA.TABLE: " + describe() + "; e.g. --table "
                            + outboxes.get(0).name());
        }
        String wanted = qualified(table);
        return outboxes.stream()
                .filter(outbox -> outbox.name().equals(wanted))
                .findFirst()
                .orElseThrow(() -> new ParameterException(
                        commandLine, "--table " + table + " is not a configured outbox: " + describe()));
    }

    /** Which setting names the outboxes and which they are, e.g. for an error message. */
    String describe() {
        String names = outboxes.stream().map(Outbox::name).collect(Collectors.joining(", "));
        if (many.isEmpty()) {
            return ConfigKey.TABLE.displayName() + " names one outbox, " + names;
        }
        OutboxesConfig config = many.get();
        if (config.isDiscovered()) {
            return ConfigKey.DISCOVERY_SCHEMA_PATTERN.displayName() + " finds "
                    + (outboxes.isEmpty()
                            ? "no outbox now (" + config.describe() + ")"
                            : outboxes.size() + " outbox(es): " + names);
        }
        return ConfigKey.TABLES.displayName() + " lists " + outboxes.size() + " outboxes: " + names;
    }

    /** {@code schema.table} as given, {@code public.table} for a bare table; lower case, as PostgreSQL folds it. */
    private static String qualified(String table) {
        String name = table.strip().toLowerCase(Locale.ROOT);
        return name.contains(".") ? name : "public." + name;
    }

    private static DatabaseConfig withTable(DatabaseConfig database, String table, int poolSize) {
        return new DatabaseConfig(
                database.url(),
                database.user(),
                database.password(),
                poolSize,
                table,
                database.completionMode(),
                database.layout());
    }
}
