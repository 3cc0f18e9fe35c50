package dev.outboxjava.relayapp;

import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.worker.InvalidSettingsException;
import dev.outboxjava.worker.MultiOutboxConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads {@code outbox.tables}, {@code outbox.discovery.schema.pattern}, {@code outbox.discovery.interval} and
 * {@code outbox.relay.max.idle.poll.interval}: whether the worker relays many outboxes, and which.
 */
final class OutboxesReader {

    private OutboxesReader() {}

    /**
     * Reads the outboxes of a worker of many, each problem named by its key.
     *
     * @param table  {@code outbox.table}, the table a discovery rule looks for
     * @param layout the store layout, which bounds the table names
     * @return empty when neither a list nor a pattern is set (the one table of {@code outbox.table})
     */
    static Optional<OutboxesConfig> read(ConfigReader reader, String table, StoreLayout layout) {
        String list = reader.string(ConfigKey.TABLES).strip();
        String pattern = reader.string(ConfigKey.DISCOVERY_SCHEMA_PATTERN).strip();
        MultiOutboxConfig multi = multi(reader);
        if (list.isEmpty() && pattern.isEmpty()) {
            return Optional.empty();
        }
        if (!list.isEmpty() && !pattern.isEmpty()) {
            reader.problem(
                    ConfigKey.DISCOVERY_SCHEMA_PATTERN,
                    "cannot be set together with " + ConfigKey.TABLES.displayName() + ": list the tables, or let "
                            + "the pattern find them, not both");
            return Optional.empty();
        }
        if (!list.isEmpty()) {
            List<String> tables = tables(reader, list, layout);
            return tables.isEmpty()
                    ? Optional.empty()
                    : Optional.of(new OutboxesConfig(tables, Optional.empty(), table, multi));
        }
        if (table.contains(".")) {
            reader.problem(
                    ConfigKey.TABLE,
                    "must name the table alone (e.g. outbox_events) with "
                            + ConfigKey.DISCOVERY_SCHEMA_PATTERN.displayName() + ", was '" + table
                            + "': the schemas come from the pattern");
            return Optional.empty();
        }
        try {
            return Optional.of(new OutboxesConfig(List.of(), Optional.of(Pattern.compile(pattern)), table, multi));
        } catch (PatternSyntaxException e) {
            reader.problem(
                    ConfigKey.DISCOVERY_SCHEMA_PATTERN,
                    "must be a Java regular expression (e.g. tenant_.*), was '" + pattern + "': " + e.getDescription());
            return Optional.empty();
        }
    }

    /** Each listed name checked by the store's own name rules; a name listed twice is a problem. */
    private static List<String> tables(ConfigReader reader, String list, StoreLayout layout) {
        List<String> tables = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String entry : list.split(",", -1)) {
            String name = entry.strip();
            if (name.isEmpty()) {
                reader.problem(
                        ConfigKey.TABLES, "has an empty entry in '" + list + "': separate the tables by one comma");
                continue;
            }
            String qualified = name.contains(".") ? name : "public." + name;
            if (!seen.add(qualified)) {
                reader.problem(ConfigKey.TABLES, "lists the table " + qualified + " twice");
                continue;
            }
            int problemsBefore = reader.problemCount();
            reader.check(
                    ConfigKey.TABLES,
                    () -> PostgresOutboxConfig.builder()
                            .tableName(name)
                            .layout(layout)
                            .build());
            if (reader.problemCount() == problemsBefore) {
                tables.add(name);
            }
        }
        return tables;
    }

    private static MultiOutboxConfig multi(ConfigReader reader) {
        try {
            return MultiOutboxConfig.builder()
                    .discoveryInterval(reader.duration(ConfigKey.DISCOVERY_INTERVAL))
                    .maxIdlePollInterval(reader.duration(ConfigKey.RELAY_MAX_IDLE_POLL_INTERVAL))
                    .build();
        } catch (InvalidSettingsException e) {
            for (InvalidSettingsException.Problem problem : e.problems()) {
                reader.problem(
                        problem.key().endsWith("discoveryInterval")
                                ? ConfigKey.DISCOVERY_INTERVAL
                                : ConfigKey.RELAY_MAX_IDLE_POLL_INTERVAL,
                        problem.reason());
            }
            return MultiOutboxConfig.ofDefaults();
        }
    }
}
